"""Batched random self-play on Exhaust's vector env, with throughput.

Actions are sampled from the masks by the compiled sampler (``sample_actions``), as a
policy would choose them in Python; ``--bots strong,npc,npc,random`` lets scripted bots
choose inside the kernel instead and reports each seat's loss rate.
Run: python examples/exhaust_vector_selfplay.py --num-envs 1024 --steps 500
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import exhaust_env


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--num-envs", type=int, default=1024)
    parser.add_argument("--steps", type=int, default=500)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--mode", choices=["standard", "long"], default="standard")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--bots", default=None, help="e.g. strong,npc,npc,random (in-kernel)")
    args = parser.parse_args()

    venv = exhaust_env.vector_env(args.num_envs, num_players=args.players, mode=args.mode, copy=False)
    obs, info = venv.reset(seed=args.seed)
    losses = np.zeros(args.players)
    episodes = 0
    t0 = time.perf_counter()
    for _ in range(args.steps):
        if args.bots:
            obs, rewards, terminated, truncated, info = venv.step_bots(args.bots)
        else:
            actions = venv.sample_actions()  # a policy would use obs and info["action_mask"]
            obs, rewards, terminated, truncated, info = venv.step(actions)
        done = terminated | truncated
        episodes += int(done.sum())
        losses += (rewards[done] < 0).sum(axis=0)
    dt = time.perf_counter() - t0
    print(f"{args.steps * args.num_envs / dt:,.0f} env steps/s over {args.num_envs} envs")
    rates = ", ".join(f"player_{k} {x / max(episodes, 1):.2f}" for k, x in enumerate(losses))
    print(f"{episodes} episodes finished; loss rate per seat: {rates}")


if __name__ == "__main__":
    main()
