"""The vector env's steps/s by batch size, beside Pgx ``connect_four`` at the same batches
(with the ``bench`` extra), one JSON line per game: where a step's rows outgrow the cache
on this machine (``docs/vector-env.md``, "Choosing the batch").

    python benchmarks/batches.py koikoi [--batches 256,1024,4096,8192] [--rounds 5]
        [--threads 2] [--no-peers]

The game's default options, in-kernel random bots, ``copy=False``; every loop is timed
once in each round, its order turned by one each round, and the figures are the medians
over the rounds (:func:`tabletop_core.tools.bench.batch_sweep`).
"""

from __future__ import annotations

import argparse
import json

from tabletop_core.cli.app import bench_batches_arg
from tabletop_core.contract.catalog import load_game
from tabletop_core.tools.bench import batch_sweep
from tabletop_core.tools.scripts import run_script


def _positive_int(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {n}")
    return n


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("game", help="thegame, exhaust, koikoi or exitnow")
    p.add_argument("--batches", type=bench_batches_arg, default=(256, 1024, 4096, 8192))
    p.add_argument("--rounds", type=_positive_int, default=5, help="rounds of one window per loop")
    p.add_argument(
        "--threads", type=_positive_int, default=2, help="the vector env's threads (at most one per env)"
    )
    p.add_argument("--no-peers", action="store_true", help="skip Pgx")
    args = p.parse_args()
    try:
        game = load_game(args.game)
    except (KeyError, ValueError) as exc:
        p.error(str(exc))
    try:
        record = batch_sweep(
            game, None, args.batches, rounds=args.rounds, num_threads=args.threads, peer=not args.no_peers
        )
    except ValueError as exc:
        p.error(str(exc))
    print(json.dumps(record), flush=True)


if __name__ == "__main__":
    run_script(main)
