"""The hot paths of one game, one JSON line: the vector env at batch 1024 on one thread
(random bots inside the kernel; actions from Python, the first legal one), and full
games per second for each scripted bot (the arena's ``play_games`` loop). Best of a few
windows. Run it from two checkouts back to back to compare code (``PYTHONPATH=TREE``):

    PYTHONPATH=../old python benchmarks/hot_paths.py thegame
    PYTHONPATH=. python benchmarks/hot_paths.py thegame
"""

from __future__ import annotations

import argparse
import importlib
import json
import time
from collections.abc import Callable

import numpy as np

from tabletop_core.contract.catalog import load_game
from tabletop_core.tools import arena
from tabletop_core.tools.scripts import run_script


def _best_rate(fn: Callable[[], int], windows: int, seconds: float) -> float:
    """Best units/s of ``fn`` (returns the units it did) over ``windows`` windows of at
    least one call and ``seconds``."""
    best = 0.0
    for _ in range(windows):
        t0, n = time.perf_counter(), fn()
        while time.perf_counter() - t0 < seconds:
            n += fn()
        best = max(best, n / (time.perf_counter() - t0))
    return best


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("game", help="thegame, exhaust, koikoi or exitnow")
    p.add_argument("--batch", type=int, default=1024)
    args = p.parse_args()
    game = load_game(args.game)
    env = importlib.import_module(load_game(args.game).package).vector_env(args.batch, num_threads=1)
    env.reset(seed=0)
    out: dict[str, float] = {}

    def bots() -> int:
        env.step_bots("random")
        return args.batch

    actions = np.zeros(args.batch, np.int64)

    def first_legal() -> int:
        actions[:] = env.action_masks().argmax(1)
        env.step(actions)
        return args.batch

    for fn in (bots, first_legal):
        fn()  # compile
    out["vec_bots_random"] = _best_rate(bots, 5, 0.3)
    out["vec_step_first_legal"] = _best_rate(first_legal, 5, 0.3)
    for bot in game.bot_names:
        games = 300 if bot in ("strong", "smart") else 2000
        lineup = game.lineup_for(bot, {})  # a role-bound bot (Exit Now's ghost) plays its own seats
        arena.run_match(game, lineup, games=50, seed=0)  # compile
        seeds = iter(range(1, 10**6))

        def match(lineup=lineup, games=games, seeds=seeds) -> int:
            arena.run_match(game, lineup, games=games, seed=next(seeds))
            return games

        out[f"games_{bot}"] = _best_rate(match, 3, 0.0)
    print(json.dumps({"game": args.game, **{k: round(v) for k, v in out.items()}}))


if __name__ == "__main__":
    run_script(main)
