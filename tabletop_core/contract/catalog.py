"""The catalog of games: every :class:`~tabletop_core.contract.game.GameDef` installed.

A game is listed under the ``tabletop_rl.games`` entry-point group of its distribution
(``thegame = "thegame_env.game:GAME"`` in ``pyproject.toml``), so a game installed from
another distribution appears in the CLI, ``tabletop list``, the soak and the trainer with
no edit here. :func:`register_game` adds one at run time (a game under development, or
the test suite's contract game). A game's package is imported only when it is asked for.
"""

from __future__ import annotations

import importlib
from importlib.metadata import entry_points

from tabletop_core.contract.game import GameDef
from tabletop_core.kernel.jit import GAMES_GROUP, package_of, stamp_package

__all__ = ["GAMES_GROUP", "available_games", "game_names", "load_game", "register_game"]

_REGISTERED: dict[str, str | GameDef] = {}


def _installed() -> dict[str, str]:
    """``{name: "module:attr"}`` of the installed games' entry points."""
    return {ep.name: ep.value for ep in entry_points(group=GAMES_GROUP)}


def game_names() -> list[str]:
    """The names of every listed game (installed, in their distributions' order, then
    registered), without importing any."""
    return list({**_installed(), **_REGISTERED})


def register_game(name: str, target: str | GameDef) -> None:
    """List a game at run time: ``target`` is ``"module:attr"`` naming its GameDef, or
    the GameDef itself. A name already listed is replaced.

    Raises:
        ValueError: a target that is neither (naming what is allowed).
    """
    if isinstance(target, str):
        if ":" not in target:
            raise ValueError(f"register_game({name!r}, ...) needs 'module:attr', got {target!r}")
        stamp_package(package_of(target))
    elif not isinstance(target, GameDef):
        raise ValueError(f"register_game({name!r}, ...) needs 'module:attr' or a GameDef, got {target!r}")
    _REGISTERED[name] = target


def load_game(name: str) -> GameDef:
    """The :class:`GameDef` of game ``name``.

    Raises:
        ValueError: for an unknown game or one that does not load, naming the games.
    """
    target = _REGISTERED.get(name) or _installed().get(name)
    if target is None:
        listed = ", ".join(game_names()) or "none (is tabletop-rl installed? pip install -e .)"
        raise ValueError(f"unknown game {name!r}; games: {listed}")
    if isinstance(target, GameDef):
        return target
    module, _, attr = target.partition(":")
    try:
        game = getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError) as exc:
        raise ValueError(f"game {name!r} is not available ({exc}); games: {', '.join(game_names())}") from exc
    if not isinstance(game, GameDef):
        raise ValueError(f"game {name!r} is not available ({target} is not a GameDef)")
    return game


def available_games() -> list[str]:
    """The names of the listed games that load."""
    out = []
    for name in game_names():
        try:
            load_game(name)
        except ValueError:
            continue
        out.append(name)
    return out
