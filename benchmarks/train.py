"""Training throughput of `tabletop train` against sb3-contrib MaskablePPO, one JSON line
per measurement (the same as `tabletop bench GAME --train`).

    python benchmarks/train.py                     # The Game, 2 players
    python benchmarks/train.py --game koikoi --seconds 30

Lines (see tabletop_core/train/bench.py): "matmul" (torch's matmul throughput on the
network's shapes, same run), "train" (steps/s end to end, time split, mfu), "sb3"
(MaskablePPO steps/s, same env and rollout size) and "summary" (speedup_vs_sb3, mfu,
env_plumbing_share).
"""

from __future__ import annotations

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from tabletop_core.train.bench import run_train_bench  # noqa: E402


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--game", default="thegame")
    p.add_argument("--seconds", type=float, default=30.0, help="timed window of the trainer")
    p.add_argument("--no-sb3", action="store_true", help="skip the MaskablePPO measurement")
    args = p.parse_args()
    for rec in run_train_bench(args.game, seconds=args.seconds, sb3=not args.no_sb3):
        print(json.dumps(rec), flush=True)


if __name__ == "__main__":
    main()
