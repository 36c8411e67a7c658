"""How the benchmark scripts (``benchmarks/*.py``) end: Ctrl-C stops a script as it stops
``tabletop``, with a line and status 130 instead of a traceback, and the JSON lines it
printed before stand."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import NoReturn

__all__ = ["run_script"]


def run_script(main: Callable[[], int | None]) -> NoReturn:
    """Run a script's ``main`` and exit with its status (``None``: 0). Ctrl-C prints
    ``interrupted`` to stderr and exits with status 130, without a traceback; the lines
    the script printed before it stand (each script prints a record once it is final).

    Raises:
        SystemExit: always, with ``main``'s status, 130 on Ctrl-C, or the status a
            ``SystemExit`` inside ``main`` carried (argparse's 2 on a bad argument).
    """
    try:
        status = main()
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr, flush=True)
        sys.exit(130)
    sys.exit(status or 0)
