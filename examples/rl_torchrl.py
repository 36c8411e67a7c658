"""TorchRL on a game's PettingZoo AEC env: PettingZooWrapper(use_mask=True) + masked A2C.

All seats go in one group (``group_map={"players": agents}``), so one shared policy sees
``("players", "observation", "observation")`` (P, D) and ``("players", "action_mask")``
(P, A) at every step; ``("players", "mask")`` marks the acting seat (AEC: one at a time;
TorchRL gives the others an all-True action mask). A ``ProbabilisticActor`` with
``MaskedCategorical`` samples legal actions, a ``Collector`` (``SyncDataCollector`` before torchrl 0.14) gathers frames, and
an advantage actor-critic loss trains on the acting seat's entries, each crediting the
rewards its own seat receives from that step on (discounted, bootstrapped by the critic
at the end of a batch).

Install: pip install torch==2.13.0 && pip install -e ".[rl]"
Run:     python examples/rl_torchrl.py --game thegame --players 2 --steps 20000
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import time

import torch
from tensordict.nn import TensorDictModule
from torch import nn
from torchrl.envs.libs.pettingzoo import PettingZooWrapper
from torchrl.modules import MaskedCategorical, ProbabilisticActor

from tabletop_core.contract.catalog import load_game

try:  # torchrl >= 0.14
    from torchrl.collectors import Collector
except ImportError:  # older torchrl
    from torchrl.collectors import SyncDataCollector as Collector

OBS = ("players", "observation", "observation")
MASK = ("players", "action_mask")
ACTION = ("players", "action")


def mlp(inp: int, out: int, hidden: int = 128) -> nn.Module:
    return nn.Sequential(
        nn.Linear(inp, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh(), nn.Linear(hidden, out)
    )


def make_env(game: str, players: int, seed: int):
    package = importlib.import_module(load_game(game).package)
    aec = package.env(num_players=players)
    agents = list(aec.possible_agents)
    return PettingZooWrapper(aec, use_mask=True, group_map={"players": agents}, seed=seed), len(agents)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--game", default="thegame")
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--steps", type=int, default=20_000, help="env steps (frames) to collect")
    p.add_argument("--frames-per-batch", type=int, default=512)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--gamma", type=float, default=0.99)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--threads", type=int, default=1)
    args = p.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)

    env, num_players = make_env(args.game, args.players, args.seed)
    obs_dim = env.observation_spec[OBS].shape[-1]
    num_actions = env.full_action_spec[ACTION].space.n
    # observations lie in [0, 1] (Box(0, 1)): the networks take them as they are
    logits = TensorDictModule(mlp(obs_dim, num_actions), in_keys=[OBS], out_keys=[("players", "logits")])
    actor = ProbabilisticActor(
        logits,
        in_keys={"logits": ("players", "logits"), "mask": MASK},
        out_keys=[ACTION],
        distribution_class=MaskedCategorical,
        return_log_prob=False,
    )
    critic = mlp(obs_dim, 1)
    optim = torch.optim.Adam([*actor.parameters(), *critic.parameters()], lr=args.lr)
    kwargs = (
        {"auto_register_policy_transforms": False}
        if "auto_register_policy_transforms" in str(inspect.signature(Collector))
        else {}
    )
    collector = Collector(
        env,
        actor,
        frames_per_batch=args.frames_per_batch,
        total_frames=args.steps,
        split_trajs=False,
        **kwargs,
    )

    ep_return, finished, frames, t0 = 0.0, [], 0, time.time()
    for batch in collector:
        frames += batch.numel()
        obs, mask, acting = batch[OBS], batch[MASK], batch["players", "mask"]  # (T, P, ...)
        reward = batch["next", "players", "reward"].squeeze(-1)  # (T, P)
        done = batch["next", "done"].squeeze(-1)  # (T,)
        for r, d in zip(reward[:, 0].tolist(), done.tolist()):
            ep_return += r
            if d:
                finished.append(ep_return)
                ep_return = 0.0
        # discounted per-seat return-to-go, bootstrapped at the batch end by each seat's value
        with torch.no_grad():
            ret = critic(batch.get(("next", *OBS))[-1]).squeeze(-1) * (~done[-1]).float()
        returns = torch.zeros_like(reward)
        for t in range(reward.shape[0] - 1, -1, -1):
            ret = reward[t] + args.gamma * ret * (~done[t]).float()
            returns[t] = ret
        x, m = obs[acting], mask[acting]
        dist = MaskedCategorical(logits=logits.module(x), mask=m)
        value = critic(x).squeeze(-1)
        adv = (returns[acting] - value).detach()
        loss = (
            -(dist.log_prob(batch[ACTION][acting]) * adv).mean()
            + 0.5 * (returns[acting] - value).pow(2).mean()
        )
        loss = loss - 0.01 * dist.entropy().mean()
        optim.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_([*actor.parameters(), *critic.parameters()], 1.0)
        optim.step()
    collector.shutdown()
    recent = finished[-50:]
    mean = sum(recent) / len(recent) if recent else float("nan")
    print(
        f"mean_return={mean:.2f} steps={frames} episodes={len(finished)} seats={num_players} "
        f"seconds={time.time() - t0:.0f}"
    )


if __name__ == "__main__":
    main()
