"""The catalog of games: name -> package, loaded on demand."""

from __future__ import annotations

import importlib

from tabletop_core.contract.game import GameDef

GAME_PACKAGES: dict[str, str] = {
    "thegame": "thegame_env",
    "exhaust": "exhaust_env",
    "koikoi": "koikoi_env",
    "exitnow": "exitnow_envs",
}


def load_game(name: str) -> GameDef:
    """The :class:`GameDef` of game ``name``.

    Raises:
        ValueError: for an unknown or unavailable game, naming the available ones.
    """
    pkg = GAME_PACKAGES.get(name)
    if pkg is None:
        raise ValueError(f"unknown game {name!r}; games: {', '.join(available_games())}")
    try:
        module = importlib.import_module(pkg)
    except ImportError as exc:
        raise ValueError(
            f"game {name!r} is not available ({exc}); games: {', '.join(available_games())}"
        ) from exc
    game = getattr(module, "GAME", None)
    if not isinstance(game, GameDef):
        raise ValueError(f"game {name!r} is not available (its package defines no GAME)")
    return game


def available_games() -> list[str]:
    """Names of the games whose package imports."""
    out = []
    for name, pkg in GAME_PACKAGES.items():
        try:
            module = importlib.import_module(pkg)
        except Exception:
            continue
        if isinstance(getattr(module, "GAME", None), GameDef):
            out.append(name)
    return out
