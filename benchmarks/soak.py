"""Soak a game: random and bot games in the vector env, invariants checked every step.

    python benchmarks/soak.py thegame --games 1000000 [--num-envs 4096] [--validate-every 1]
        [--seed 0] [--progress] [--option value ...]

The same as ``tabletop soak GAME ...`` (the code lives in ``tabletop_core/tools/soak.py``):
prints one JSON line with games, steps, games/s, steps/s and the violations found (exit
status 1 when there is one).
"""

from __future__ import annotations

import sys

from tabletop_core.cli import main

if __name__ == "__main__":
    sys.exit(main(["soak", *sys.argv[1:]]))
