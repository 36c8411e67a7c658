"""Batched random self-play of Shikokushi Koikoi in the vector env; prints steps/s.

Run: python examples/koikoi_vector_selfplay.py --num-envs 1024 --steps 500
"""

from __future__ import annotations

import argparse
import time

import koikoi_env


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--num-envs", type=int, default=1024)
    parser.add_argument("--steps", type=int, default=500)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    venv = koikoi_env.vector_env(args.num_envs, num_players=args.players, rounds=8, copy=False)
    obs, info = venv.reset(seed=args.seed)
    venv.step(venv.sample_actions())  # compile / warm up
    games = 0
    start = time.perf_counter()
    for _ in range(args.steps):
        obs, rewards, terminated, truncated, info = venv.step(venv.sample_actions())
        games += int(terminated.sum())
    elapsed = time.perf_counter() - start
    print(f"{args.num_envs * args.steps / elapsed:,.0f} steps/s ({games} games finished, obs {obs.shape})")


if __name__ == "__main__":
    main()
