"""RLlib (new API stack) PPO with an action-masking RLModule on a game's PettingZoo AEC env.

The AEC env goes through RLlib's ``PettingZooEnv`` (a ``MultiAgentEnv``: each step holds
the next acting agent's observation and the reward it collected since its last turn, so
rewards are credited per seat). A small AEC wrapper renames the observation to the
``{"observations", "action_mask"}`` dict that RLlib's ``ActionMaskingTorchRLModule`` (shipped
in ``ray.rllib.examples``) expects and gives the mask as float32 (observations lie in
[0, 1]: no scaling). All seats map to one shared policy (self-play; in The Game, the team).

Versions: ray[rllib] 2.60 pins gymnasium==1.2.2 (the project needs >= 1.0, fine); tested
with torch 2.13.0 (CPU), pettingzoo 1.27.0, numpy 2.4.

Install: pip install torch==2.13.0 && pip install -e ".[rllib]"
Run:     python examples/rl_rllib_ppo.py --game thegame --players 2 --steps 20000
"""

from __future__ import annotations

import argparse
import importlib
import time

import gymnasium
import numpy as np
import ray
from pettingzoo.utils.wrappers import BaseWrapper
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule
from ray.tune.registry import register_env

from tabletop_core.contract.catalog import load_game


class MaskedDictObs(BaseWrapper):
    """Observations as ``{"observations": float32 in [0, 1], "action_mask": float32}``."""

    def __init__(self, env):
        super().__init__(env)
        agent = env.possible_agents[0]
        n = env.action_space(agent).n
        self._space = gymnasium.spaces.Dict(
            {
                "observations": env.observation_space(agent)["observation"],  # Box(0, 1, (D,))
                "action_mask": gymnasium.spaces.Box(0.0, 1.0, (n,), np.float32),
            }
        )

    def observation_space(self, agent):
        return self._space

    def observe(self, agent):
        o = super().observe(agent)
        return {
            "observations": o["observation"],
            "action_mask": o["action_mask"].astype(np.float32),
        }


def env_creator(config: dict):
    package = importlib.import_module(load_game(config["game"]).package)
    aec = package.env(num_players=config["players"])
    return PettingZooEnv(MaskedDictObs(aec))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--game", default="thegame")
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--steps", type=int, default=20_000, help="env steps to sample")
    p.add_argument("--batch", type=int, default=2000, help="train batch size (env steps)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--env-runners", type=int, default=0, help="0: sample in the driver process")
    p.add_argument("--address", default=None, help="Ray cluster address (default: a local Ray)")
    args = p.parse_args()

    if args.address:
        ray.init(address=args.address)
    else:
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    load_game(args.game)
    importlib.import_module(load_game(args.game).package)  # registers the game
    register_env("tabletop_aec", env_creator)
    env_config = {"game": args.game, "players": args.players}

    config = (
        PPOConfig()
        # RLlib's env check steps unmasked random actions (illegal moves end the game): skip it
        .environment("tabletop_aec", env_config=env_config, disable_env_checking=True)
        .env_runners(num_env_runners=args.env_runners, num_envs_per_env_runner=1)
        .multi_agent(policies={"shared"}, policy_mapping_fn=lambda agent_id, episode, **kw: "shared")
        .rl_module(
            rl_module_spec=MultiRLModuleSpec(
                rl_module_specs={
                    "shared": RLModuleSpec(
                        module_class=ActionMaskingTorchRLModule,
                        model_config={"fcnet_hiddens": [128, 128], "head_fcnet_hiddens": []},
                    )
                }
            )
        )
        .training(
            train_batch_size_per_learner=min(args.batch, args.steps),
            minibatch_size=min(256, args.batch, args.steps),
            num_epochs=4,
            lr=3e-4,
            gamma=0.99,
            entropy_coeff=0.01,
        )
        .debugging(seed=args.seed)
    )
    algo = config.build_algo()
    t0, sampled, team_return = time.time(), 0, float("nan")
    while sampled < args.steps:
        result = algo.train()
        runners = result["env_runners"]
        sampled = int(runners.get("num_env_steps_sampled_lifetime", sampled + args.batch))
        per_agent = runners.get("agent_episode_returns_mean", {})
        team_return = float(per_agent.get("player_0", runners.get("episode_return_mean", float("nan"))))
        print(
            f"iter={result['training_iteration']} steps={sampled} return(player_0)={team_return:.2f}",
            flush=True,
        )
    algo.stop()
    ray.shutdown()
    print(f"mean_return={team_return:.2f} steps={sampled} seconds={time.time() - t0:.0f}")


if __name__ == "__main__":
    main()
