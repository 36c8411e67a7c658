"""A game package's public face, made from its declaration: one call in its ``__init__.py``.

:func:`export_game` puts the names every game package exports (``GAME``, ``env``,
``raw_env``, ``vector_env``, ``baseline_policy``, ``ENV_ID``, ``validate_state``,
``resample_hidden``) into the package's namespace from its
:class:`~tabletop_core.contract.game.GameDef`, appends the game's page to the package
docstring (so ``help(<package>)`` shows it) and returns those names, the head of the
package's ``__all__`` (its own names follow: ``__all__ = export_game(GAME, globals()) + [...]``).
"""

from __future__ import annotations

from typing import Any

from tabletop_core.contract.game import GameDef
from tabletop_core.envs.factories import game_envs

__all__ = ["export_game", "FACES"]

FACES = (
    "GAME",
    "env",
    "raw_env",
    "vector_env",
    "baseline_policy",
    "ENV_ID",
    "validate_state",
    "resample_hidden",
)
"""The names every game package exports, in this order, before its own."""


def export_game(game: GameDef, namespace: dict[str, Any]) -> list[str]:
    """Fill a game package's namespace (its ``globals()``) with the public face of its
    declaration ``game`` and return the names it put there: :data:`FACES`
    (``resample_hidden`` only for a game with the ``search`` bot's hook).

    Raises:
        ValueError: ``game`` is not a :class:`~tabletop_core.contract.game.GameDef`.
    """
    if not isinstance(game, GameDef):
        raise ValueError(f"export_game takes the package's GameDef, got {type(game).__name__}")
    made = game_envs(game)
    namespace.update(
        GAME=game,
        env=made.env,
        raw_env=made.raw_env,
        vector_env=made.vector_env,
        baseline_policy=made.baseline_policy,
        ENV_ID=game.ENV_ID,
        validate_state=game.validate_state,
    )
    if game.resample_hidden is not None:
        namespace["resample_hidden"] = game.resample_hidden
    page = game.page
    doc = namespace.get("__doc__") or ""
    if page and page not in doc:  # help(<package>) shows the game's page too
        namespace["__doc__"] = f"{doc}\n{page}"
    return [n for n in FACES if n in namespace]
