"""Self-play masked PPO on a game's vector env: now a thin call of ``tabletop train``.

The CleanRL-style loop that lived here (one policy for the acting seat of every env,
per-seat credit assignment) moved into the project as :mod:`tabletop_core.train`, where it
runs with thousands of envs, compiled sampling and advantages, bf16 and a league of past
snapshots. This script keeps the old flags for the common case; every other setting is a
``tabletop train`` flag (``tabletop train --help``, ``docs/training.md``).

Install: pip install torch==2.13.0 && pip install -e ".[train]"
Run:     python examples/rl_cleanrl_selfplay_ppo.py --game thegame --players 2 --steps 500000
Same as: tabletop train thegame --players 2 --steps 500000 --out runs/cleanrl_selfplay
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from tabletop_core.train import TrainConfig, train  # noqa: E402


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--game", default="thegame")
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--steps", type=int, default=500_000, help="env steps (all seats)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--num-envs", type=int, default=None, help="default: tabletop train's")
    p.add_argument("--eval-episodes", type=int, default=200, help="fixed deals per evaluation")
    p.add_argument("--out", default="runs/cleanrl_selfplay", help="run folder")
    p.add_argument("--save-policy", default=None, help="also copy policy.npz here")
    args = p.parse_args()
    extra = {"num_envs": args.num_envs} if args.num_envs else {}
    if args.num_envs:
        extra["minibatch"] = min(4096, args.num_envs * 16)
    summary = train(
        TrainConfig(
            game=args.game,
            options={"num_players": args.players},
            steps=args.steps,
            seed=args.seed,
            out=args.out,
            eval_games=args.eval_episodes,
            final_games=args.eval_episodes,
            progress=sys.stderr.isatty(),
            **extra,
        )
    )
    if args.save_policy:
        shutil.copy(os.path.join(args.out, "policy.npz"), args.save_policy)
    ev = summary["final_eval"]
    print(f"mean_return={ev['mean']:.2f} steps={summary['steps']} seconds={summary['train_seconds']:.0f}")


if __name__ == "__main__":
    main()
