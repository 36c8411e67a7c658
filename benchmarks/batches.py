"""The vector env's steps/s by batch size, beside Pgx ``connect_four`` at the same batches
(with the ``bench`` extra), one JSON line per game: where a step's rows outgrow the cache
on this machine (``docs/vector-env.md``, "Choosing the batch").

    python benchmarks/batches.py koikoi [--batches 256,1024,4096,8192] [--windows 5]
        [--threads 2] [--no-peers] [game options, e.g. --players 3]

The game's options as ``tabletop bench GAME`` takes them (``--help`` after the game lists
them; the defaults where none is given), in-kernel random bots, ``copy=False``; every loop is timed
once in each round, its order turned by one each round, and the figures are the medians
over the rounds (:func:`tabletop_core.tools.bench.batch_sweep`).
"""

from __future__ import annotations

import argparse
import json

from tabletop_core.cli.app import add_game_parsers, bench_batches_arg
from tabletop_core.contract.options import options_from_args
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


def _setup(gp: argparse.ArgumentParser, game) -> None:
    """The sweep's own arguments on ``game``'s sub-parser (the game's options follow, as
    ``tabletop bench GAME`` takes them: :func:`tabletop_core.cli.app.add_game_parsers`)."""
    gp.add_argument(
        "--batches",
        type=bench_batches_arg,
        default=(256, 1024, 4096, 8192),
        help="comma-separated vector batches, each 1..65536 (default 256,1024,4096,8192)",
    )
    gp.add_argument("--windows", type=_positive_int, default=5, help="timed windows per loop, one a round")
    gp.add_argument(
        "--threads", type=_positive_int, default=2, help="the vector env's threads (at most one per env)"
    )
    gp.add_argument("--no-peers", action="store_true", help="skip Pgx")


def _sweep(args: argparse.Namespace) -> int:
    """Run the sweep the parsed ``args`` ask for and print its JSON line."""
    options = options_from_args(args, args.game_def.make_options)
    try:
        record = batch_sweep(
            args.game_def,
            options,
            args.batches,
            windows=args.windows,
            num_threads=args.threads,
            peer=not args.no_peers,
        )
    except ValueError as exc:
        args.parser_.error(str(exc))
    print(json.dumps(record), flush=True)
    return 0


def _parser() -> argparse.ArgumentParser:
    """``batches.py GAME [sweep arguments] [game options]``: one sub-parser per game."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_game_parsers(p, "batches.py", _sweep, help="steps/s at each batch", setup=_setup)
    return p


def main() -> None:
    args = _parser().parse_args()
    args.handler(args)


if __name__ == "__main__":
    run_script(main)
