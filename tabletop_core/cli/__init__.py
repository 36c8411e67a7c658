"""``tabletop``, the command line: argparse front ends over the tools and the trainer.

:func:`main` runs a command line; :func:`build_parser` builds the whole parser (the CLI
reference is generated from it). Both come from :mod:`tabletop_core.cli.app`, imported
when first asked for, so that Ctrl-C while it loads (numba and the games' kernels, a few
seconds) ends the command as Ctrl-C later does."""

from __future__ import annotations

import sys
from typing import Any

__all__ = ["build_parser", "cmd_play", "main"]


def main(argv: list[str] | None = None) -> int:
    """Run ``tabletop`` with ``argv`` (:func:`tabletop_core.cli.app.main`); returns the exit
    status. Ctrl-C while the command's modules load prints ``tabletop: interrupted`` and
    returns 130, with no traceback."""
    try:
        from tabletop_core.cli import app
    except KeyboardInterrupt:
        print("\ntabletop: interrupted", file=sys.stderr)
        return 130
    return app.main(argv)


def __getattr__(name: str) -> Any:
    if name in ("build_parser", "cmd_play"):
        from tabletop_core.cli import app

        return getattr(app, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
