"""``tabletop``, the command line: argparse front ends over the tools and the trainer.

:func:`main` runs a command line; :func:`build_parser` builds the whole parser (the CLI
reference is generated from it)."""

from tabletop_core.cli.app import build_parser, cmd_play, main

__all__ = ["build_parser", "cmd_play", "main"]
