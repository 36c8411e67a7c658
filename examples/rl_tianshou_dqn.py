"""Tianshou 2.x: a masked DQN learner on a game's PettingZoo AEC env, bots on the other seats.

The learner plays one seat (``--seat``, default ``player_0``); ``BotSeats`` below is a thin
AEC wrapper that plays every other seat with a scripted bot (``--bot``, in the game's
compiled ``bot_action`` kernel) inside ``step``, so the wrapped env has one agent whose
reward is everything its seat receives between two of its turns. In The Game (cooperative)
that is the team's reward with a ``strong`` (default) or ``random`` partner; in a competitive
game it is a learner against bots. Observations lie in [0, 1] and are used as they are.

Tianshou's ``PettingZooEnv`` turns the ``action_mask`` into ``obs.mask``, which
``DiscreteQLearningPolicy`` applies to the Q-values and to epsilon-greedy exploration; the
learner runs inside ``MultiAgentOffPolicyAlgorithm`` as in Tianshou's tic-tac-toe example.

Install: pip install torch==2.13.0 && pip install -e ".[rl]"
Run:     python examples/rl_tianshou_dqn.py --game thegame --players 2 --bot strong --steps 50000
"""

from __future__ import annotations

import argparse
import importlib
import logging
import time

import gymnasium
import numpy as np
import torch
from pettingzoo import AECEnv
from tianshou.algorithm import DQN, MultiAgentOffPolicyAlgorithm
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.data import Collector, CollectStats, VectorReplayBuffer
from tianshou.env import DummyVectorEnv
from tianshou.env.pettingzoo_env import PettingZooEnv
from tianshou.trainer import OffPolicyTrainerParams
from tianshou.utils.net.common import Net

from tabletop_core.contract.catalog import load_game
from tabletop_core.kernel.rng import bot_seed_word


class BotSeats(AECEnv):
    """One seat of a tabletop AEC env as a one-agent AEC env; bots play the other seats."""

    metadata = {"render_modes": [], "is_parallelizable": False, "name": "bot_seats"}

    def __init__(self, raw, seat: str, bot: str):
        super().__init__()
        self.raw, self.seat = raw, seat
        self.game = raw.game
        self.bot_id = int(self.game.bot_ids(bot, len(raw.possible_agents))[0])
        self.bot_rng = np.zeros(1, np.uint64)
        self.possible_agents = [seat]
        space = raw.observation_space(seat)
        self._obs_space = gymnasium.spaces.Dict(
            {"observation": space["observation"], "action_mask": space["action_mask"]}
        )

    def observation_space(self, agent):
        return self._obs_space

    def action_space(self, agent):
        return self.raw.action_space(agent)

    def _ended(self) -> bool:
        return any(self.raw.terminations.values()) or any(self.raw.truncations.values())

    def _play_bots(self) -> float:
        """Bots act until the learner's turn or the end; the learner's reward meanwhile."""
        got = 0.0
        while not self._ended() and self.raw.agent_selection != self.seat:
            a = self.game.bot_decision(self.bot_id, self.raw._state, self.raw._mask[0], self.bot_rng)
            self.raw.step(int(a))
            got += self.raw.rewards[self.seat]
        return got

    def _publish(self, reward: float) -> None:
        done = self._ended()
        self.rewards = {self.seat: reward}
        self._cumulative_rewards[self.seat] += reward
        self.terminations = {self.seat: done and any(self.raw.terminations.values())}
        self.truncations = {self.seat: done and not self.terminations[self.seat]}
        self.infos = {self.seat: {}}

    def reset(self, seed=None, options=None):
        self.raw.reset(seed=seed)
        self.bot_rng[0] = bot_seed_word(seed)
        self.agents = [self.seat]
        self.agent_selection = self.seat
        self._cumulative_rewards = {self.seat: 0.0}
        self._publish(self._play_bots())

    def step(self, action):
        if self.terminations[self.seat] or self.truncations[self.seat]:
            self.agents = []
            return
        self._cumulative_rewards[self.seat] = 0.0
        self.raw.step(int(action))
        self._publish(self.raw.rewards[self.seat] + self._play_bots())

    def observe(self, agent):
        o = self.raw.observe(self.seat)
        return {"observation": o["observation"], "action_mask": o["action_mask"]}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--game", default="thegame")
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--seat", default="player_0")
    p.add_argument("--bot", default="strong", help="bot for the other seats")
    p.add_argument("--steps", type=int, default=50_000, help="learner env steps")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--num-envs", type=int, default=8)
    p.add_argument("--test-episodes", type=int, default=20)
    p.add_argument("--threads", type=int, default=1)
    args = p.parse_args()
    logging.getLogger("tianshou").setLevel(logging.ERROR)  # per-step stats shape notes
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    np.random.seed(args.seed)  # noqa: NPY002 (Tianshou explores with the global numpy RNG)

    load_game(args.game)
    package = importlib.import_module(load_game(args.game).package)

    def make_env():
        return PettingZooEnv(BotSeats(package.raw_env(num_players=args.players), args.seat, args.bot))

    env = make_env()
    obs_space = env.observation_space["observation"]
    net = Net(state_shape=obs_space.shape, action_shape=env.action_space.n, hidden_sizes=[256, 256])
    policy = DiscreteQLearningPolicy(
        model=net, action_space=env.action_space, eps_training=0.1, eps_inference=0.0
    )
    dqn = DQN(
        policy=policy,
        optim=AdamOptimizerFactory(lr=1e-4),
        n_step_return_horizon=3,
        gamma=0.99,
        target_update_freq=500,
    )
    algorithm = MultiAgentOffPolicyAlgorithm(algorithms=[dqn], env=env)
    train_envs = DummyVectorEnv([make_env for _ in range(args.num_envs)])
    test_envs = DummyVectorEnv([make_env for _ in range(min(args.num_envs, args.test_episodes))])
    train_envs.seed(args.seed)
    test_envs.seed(args.seed + 10_000)
    train_collector = Collector[CollectStats](
        algorithm, train_envs, VectorReplayBuffer(50_000, len(train_envs)), exploration_noise=True
    )
    test_collector = Collector[CollectStats](algorithm, test_envs, exploration_noise=False)
    train_collector.reset()
    warmup = min(args.steps // 4, 64 * args.num_envs)
    train_collector.collect(n_step=warmup)

    epoch_steps = min(args.steps, 10_000)
    t0 = time.time()
    algorithm.run_training(
        OffPolicyTrainerParams(
            training_collector=train_collector,
            test_collector=test_collector,
            max_epochs=max(1, args.steps // epoch_steps),
            epoch_num_steps=epoch_steps,
            collection_step_num_env_steps=args.num_envs * 4,
            test_step_num_episodes=args.test_episodes,
            batch_size=64,
            update_step_num_gradient_steps_per_sample=0.25,
            test_in_training=False,
            show_progress=False,
            verbose=False,
            multi_agent_return_reduction=lambda rews: rews[:, 0],
        )
    )
    test_collector.reset()
    stats = test_collector.collect(n_episode=args.test_episodes, reset_before_collect=True)
    returns = np.asarray(stats.returns).reshape(len(stats.returns), -1)[:, 0]
    print(
        f"mean_return={returns.mean():.2f} steps={train_collector.collect_step} "
        f"episodes={returns.size} bot={args.bot} seconds={time.time() - t0:.0f}"
    )


if __name__ == "__main__":
    main()
