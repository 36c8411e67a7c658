"""Run a game's benchmarks and print one JSON line per measurement.

    python benchmarks/run.py thegame [--seconds 2] [--quick] [--no-peers] [--option value ...]

The same as ``tabletop bench GAME --json`` (the measurement code lives in
``tabletop_core/tools/bench.py``, so the installed ``tabletop`` command can run it).
"""

from __future__ import annotations

import sys

from tabletop_core.cli import main

if __name__ == "__main__":
    args = sys.argv[1:]
    sys.exit(main(["bench", *args, *([] if "--json" in args else ["--json"])]))
