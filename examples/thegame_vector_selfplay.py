"""Batched random self-play on The Game's vector env, with throughput.

Actions are sampled from the masks by the compiled sampler (``sample_actions``), as a
policy would choose them in Python; ``--in-kernel`` lets the random bot choose inside the
kernel instead. Run: python examples/thegame_vector_selfplay.py --num-envs 1024 --steps 500
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import thegame_env


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--num-envs", type=int, default=1024)
    parser.add_argument("--steps", type=int, default=500)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--in-kernel", action="store_true")
    args = parser.parse_args()

    venv = thegame_env.vector_env(args.num_envs, num_players=args.players, copy=False)
    obs, info = venv.reset(seed=args.seed)
    returns = np.zeros(args.num_envs)
    finished = []
    t0 = time.perf_counter()
    for _ in range(args.steps):
        if args.in_kernel:
            obs, rewards, terminated, truncated, info = venv.step_bots("random")
        else:
            actions = venv.sample_actions()  # a policy would use obs and info["action_mask"]
            obs, rewards, terminated, truncated, info = venv.step(actions)
        returns += rewards[:, 0]
        done = terminated | truncated
        finished.extend(returns[done].tolist())
        returns[done] = 0.0
    dt = time.perf_counter() - t0
    print(f"{args.steps * args.num_envs / dt:,.0f} env steps/s over {args.num_envs} envs")
    print(f"{len(finished)} episodes finished, mean cards placed {np.mean(finished):.1f} of 98")


if __name__ == "__main__":
    main()
