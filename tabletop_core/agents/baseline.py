"""Trained baselines: one policy per game, shipped as package data (``docs/baselines.md``).

Each game package holds its baselines in ``<package>/baselines/*.npz``: an
:class:`~tabletop_core.agents.policy.MLPPolicy` whose ``meta`` records the game, the options it
was trained with, the observation layout's digest and the seats it plays (several files
may split the seats between them: Exit Now ships ``humans.npz`` for its human seats and
``ghost.npz`` for the ghost seat; the other games one ``baseline.npz`` for every seat).

The bot name :data:`BASELINE` (``"baseline"``) plays it wherever a bot is named:
``tabletop match --bots baseline,...``, ``tabletop play --bots baseline``,
``vector_env(...).step_bots("baseline,...")``, the trainer's ``--opponents baseline:W`` and
the Python API (``<game>.baseline_policy()``).
"""

from __future__ import annotations

import argparse
import dataclasses
import glob
import os
from functools import cache
from typing import Any

import numpy as np

from tabletop_core.agents.policy import MLPPolicy
from tabletop_core.contract.catalog import load_game
from tabletop_core.contract.options import as_options

__all__ = ["BASELINE", "baseline_files", "baseline_policy", "is_baseline", "package_policy"]

BASELINE = "baseline"
"""The bot name of a game's trained baseline."""


def is_baseline(bot: Any) -> bool:
    """Whether a bot name is the trained baseline."""
    return isinstance(bot, str) and bot.strip() == BASELINE


def baseline_files(game) -> list[str]:
    """The shipped baseline files of ``game`` (sorted paths; empty if none)."""
    return sorted(glob.glob(os.path.join(game.baseline_dir, "*.npz")))


@cache
def _load(path: str) -> MLPPolicy:
    return MLPPolicy.load(path)


def baseline_policy(game, seat: int | str | None = None, options: Any = None, **kwargs: Any) -> MLPPolicy:
    """The trained baseline of ``game`` for ``seat`` at ``options``.

    Args:
        seat: the seat it is to play (index or agent name); ``None``: seat 0. The file
            whose recorded ``seats`` hold it is used.
        options: the game's options object (or a dict); ``**kwargs``: options one by one
            (defaults where not given).

    Returns:
        The :class:`~tabletop_core.agents.policy.MLPPolicy` (greedy over legal actions).

    Raises:
        ValueError: the game ships no baseline for that seat, or the baseline was trained
            with other options (the message names the options it was trained for) or on
            another observation layout.
    """
    opts = as_options(game.make_options, options, **kwargs)
    agents = list(game.agents(opts))
    if seat is None:
        seat = 0
    if isinstance(seat, str):
        if seat not in agents:
            raise ValueError(f"seat must be one of {agents}, got {seat!r}")
        seat = agents.index(seat)
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < len(agents):
        raise ValueError(f"seat must be in 0..{len(agents) - 1} or one of {agents}, got {seat!r}")
    files = baseline_files(game)
    if not files:
        raise ValueError(f"{game.name} ships no trained baseline")
    played: set[int] = set()
    for path in files:
        pol = _load(path)
        groups = (pol.meta or {}).get("seats") or [list(range(len(agents)))]
        held = {int(k) for grp in groups for k in grp}
        if seat in held:
            pol.check_game(game, opts, strict_options=True)
            return pol
        played |= held
    raise ValueError(
        f"{game.name}: no baseline plays seat {seat} ({agents[seat]}); the baselines play seats {sorted(played)}"
    )


def package_policy(
    src: str,
    game,
    dst: str | None = None,
    seats: list[list[int]] | None = None,
    added: list[str] | None = None,
    **options: Any,
) -> MLPPolicy:
    """Ship a trained ``policy.npz`` as ``game``'s baseline: written to
    ``<package>/baselines/baseline.npz`` (or ``dst``) with float16 weights (half the bytes;
    a baseline is at most 2 MB) and ``meta`` recording the game, ``options`` (the defaults
    where not given), the observation layout's digest and the ``seats`` it plays (default:
    the seats recorded by ``tabletop train``, else every seat).

    ``added``: observation pieces added since the policy was trained (it was trained on
    the current layout without them); they get zero weights, so it plays as before
    (:meth:`~tabletop_core.agents.policy.MLPPolicy.with_added_pieces`).

    Returns the shipped policy as loaded back: its weights are the float16 values, what
    every published figure is measured on.

    Raises:
        ValueError: the file is no policy of this game's sizes, or its recorded game or
            layout differ (with ``added``: from the current layout without those pieces).
    """

    opts = game.make_options(**options)
    pol = MLPPolicy.load(src)
    if added:
        pol = pol.with_added_pieces(game.observation_layout(opts), added)
    pol.check_game(game, opts)
    agents = list(game.agents(opts))
    recorded = (pol.meta or {}).get("seats")
    pol.meta = {
        "game": game.name,
        "options": dataclasses.asdict(opts),
        "layout": game.observation_layout(opts).digest(),
        "seats": [list(map(int, g)) for g in (seats or recorded or [list(range(len(agents)))])],
    }
    pol.layers = [(w.astype(np.float16), b.astype(np.float16)) for w, b in pol.layers]
    if pol.scale is not None:
        pol.scale = pol.scale.astype(np.float16)
    dst = dst or os.path.join(game.baseline_dir, "baseline.npz")
    os.makedirs(os.path.dirname(dst) or ".", exist_ok=True)
    pol.save(dst)
    _load.cache_clear()
    return MLPPolicy.load(dst)


def main(argv: list[str] | None = None) -> int:
    """``python -m tabletop_core.agents.baseline GAME RUN/policy.npz [--seats 0+1+2,3] [--out FILE]
    [--added PIECE,...]``: ship a trained policy as the game's baseline (at its default
    options)."""

    ap = argparse.ArgumentParser(prog="python -m tabletop_core.agents.baseline", description=main.__doc__)
    ap.add_argument("game")
    ap.add_argument("policy")
    ap.add_argument("--seats", default=None, help="seats it plays, e.g. 0+1+2,3 (default: as trained)")
    ap.add_argument("--out", default=None, help="default <package>/baselines/baseline.npz")
    ap.add_argument(
        "--added",
        default=None,
        help="observation pieces added since the policy was trained, e.g. ghost_moves (zero weights)",
    )
    args = ap.parse_args(argv)
    game = load_game(args.game)
    seats = [[int(x) for x in part.split("+")] for part in args.seats.split(",")] if args.seats else None
    added = [x.strip() for x in args.added.split(",")] if args.added else None
    try:
        pol = package_policy(args.policy, game, args.out, seats, added)
    except ValueError as exc:
        ap.error(str(exc))
    print(f"{game.name}: shipped {args.out or baseline_files(game)[0]} (seats {pol.meta['seats']})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
