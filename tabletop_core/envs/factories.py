"""A game's public entry points, made from its declaration: ``raw_env``, ``env``,
``vector_env`` and ``baseline_policy``.

:func:`game_envs` builds them once per game from its :class:`~tabletop_core.contract.game.GameDef`:

* ``raw_env`` is a :class:`~tabletop_core.envs.aec.TabletopAECEnv` subclass whose
  signature lists the game's options with their defaults, read from the declarations of
  its ``spec.Options`` (:func:`tabletop_core.contract.options.option_infos`), so no
  option or default is written twice;
* ``env`` is the same wrapped in :class:`~tabletop_core.envs.aec.LeanChecks`, and
  ``vector_env`` a :class:`~tabletop_core.envs.vector.SelfPlayVectorEnv`, both with real
  signatures (``inspect.signature``) and docstrings that reach the game's page;
* each game is registered with PettingZoo as ``tabletop/<name>-v<version>``.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from functools import cache
from typing import Any, NamedTuple

import pettingzoo

from tabletop_core.agents.baseline import baseline_policy as _baseline
from tabletop_core.contract.catalog import game_names, load_game
from tabletop_core.contract.game import GameDef, registry_id
from tabletop_core.contract.options import option_infos
from tabletop_core.envs.aec import LeanChecks, TabletopAECEnv
from tabletop_core.envs.vector import SelfPlayVectorEnv

try:
    from pettingzoo.env_registry.registration import _get_registry
except ImportError:  # pragma: no cover - PettingZoo < 1.27 has no registry
    _get_registry = None

__all__ = ["GameEnvs", "game_envs", "register_aec", "register_games"]


_ENV_DOC = """{title} as a PettingZoo AEC env with PettingZoo's standard checks in one lean wrapper.

Takes the same arguments as :class:`raw_env` (the game's options, each with its default,
and ``render_mode``). An illegal action ends the game with -1 for the offender
(PettingZoo's ``TerminateIllegalWrapper`` policy); an out-of-range one raises
``ActionOutOfBoundsError``.

Raises:
    ValueError: on a bad option, naming it and what is allowed.

The game's page follows.

{page}"""

_VECTOR_DOC = """``num_envs`` games of {title} stepped together in one compiled call
(:class:`~tabletop_core.envs.vector.SelfPlayVectorEnv`).

Args:
    num_envs: the batch size ``B`` (>= 1).
    seed: env ``i`` is seeded with ``seed + i`` (None: fresh entropy).
    copy: hand out copies of the env's buffers (True) or read-only views of them, valid
        until the next step (False; faster where each step's outputs are consumed or
        copied before the next).
    num_threads: threads that step the batch (None: chosen as the env runs; results do
        not depend on it).
    options: the game's options, as for :class:`raw_env` (without ``render_mode``).

{rewards}

Raises:
    ValueError: on a bad option or argument, naming it and what is allowed.
"""


class GameEnvs(NamedTuple):
    """A game's public entry points (:func:`game_envs`)."""

    raw_env: type[TabletopAECEnv]
    env: Callable[..., LeanChecks]
    vector_env: Callable[..., SelfPlayVectorEnv]
    baseline_policy: Callable[..., Any]


def _option_parameters(game: GameDef) -> list[inspect.Parameter]:
    """The game's options as keyword parameters with their declared defaults."""
    return [
        inspect.Parameter(o.name, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=o.default)
        for o in option_infos(game.make_options)
    ]


def _render_mode() -> inspect.Parameter:
    return inspect.Parameter("render_mode", inspect.Parameter.POSITIONAL_OR_KEYWORD, default=None)


def _make_raw_env(game: GameDef) -> type[TabletopAECEnv]:
    """The game's AEC env class, its ``__init__`` taking the declared options."""
    params = [*_option_parameters(game), _render_mode()]
    signature = inspect.Signature(params)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError as exc:
            raise ValueError(f"{game.name}: {exc}; options are {', '.join(p.name for p in params)}") from exc
        bound.apply_defaults()
        options = dict(bound.arguments)
        TabletopAECEnv.__init__(self, render_mode=options.pop("render_mode"), **options)

    __init__.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD), *params]
    )
    doc = f"""{game.title or game.name} as an unwrapped PettingZoo AEC env (``help({game.package})`` has
the game's page).

Args:
    {", ".join(p.name for p in params[:-1])}: the game's options (``spec.Options``; each
        with its default, as the signature shows).
    render_mode: None, "ansi", "human", "svg" or "rgb_array".

Raises:
    ValueError: on a bad option (naming it and what is allowed).
"""
    return type(
        "raw_env",
        (TabletopAECEnv,),
        {
            "game": game,
            "metadata": {**TabletopAECEnv.metadata, "name": game.env_id},
            "__init__": __init__,
            "__doc__": doc,
            "__module__": game.package or __name__,
            "__qualname__": "raw_env",
        },
    )


@cache
def game_envs(game: GameDef) -> GameEnvs:
    """The public entry points of ``game`` (made once per game; the game's package exports
    them, and the tools use the same objects).

    Returns:
        :class:`GameEnvs` ``(raw_env, env, vector_env, baseline_policy)``.
    """
    raw_env = _make_raw_env(game)
    env, vector_env = entry_points(game, raw_env)
    made = GameEnvs(raw_env, env, vector_env, baseline_entry(game))
    if game.package:
        register_aec(game.name, game.version, f"{game.package}:env")
    return made


def register_aec(name: str, version: int, entry_point: str) -> str | None:
    """Register ``tabletop/<name>-v<version>`` with PettingZoo's registry (once); return the
    id, or None when this PettingZoo has no registry."""
    if _get_registry is None:  # pragma: no cover - PettingZoo < 1.27
        return None
    env_id = registry_id(name, version)
    if env_id not in _get_registry("aec"):
        pettingzoo.register("aec", env_id, entry_point=entry_point)
    return env_id


def register_games() -> list[str]:
    """Register every game of the catalog with PettingZoo, so that
    ``pettingzoo.make("aec", "tabletop/<game>-v<version>")`` works after::

        from tabletop_core.envs import register_games
        register_games()

    A game's package registers itself when imported (``import thegame_env``); this loads
    each listed game (its package, not its compiled kernels: about a second for four)
    and registers ``"<package>:env"`` as the entry point PettingZoo calls.

    Returns:
        The registered ids (``["tabletop/thegame-v1", ...]``); empty when this PettingZoo
        has no registry. A game that does not load is left out.
    """
    ids = []
    for name in game_names():
        try:
            game = load_game(name)
        except ValueError:
            continue
        if game.package:
            env_id = register_aec(game.name, game.version, f"{game.package}:env")
            if env_id is not None:
                ids.append(env_id)
    return ids


def entry_points(
    game: GameDef, raw_env: type[TabletopAECEnv]
) -> tuple[Callable[..., LeanChecks], Callable[..., SelfPlayVectorEnv]]:
    """Build a game's ``env`` and ``vector_env`` from its ``raw_env`` class (its title,
    page and rewards paragraph come from the declaration).

    Returns:
        ``(env, vector_env)``, with real signatures (``inspect.signature``) and docstrings.
    """
    options = [p.replace(kind=inspect.Parameter.KEYWORD_ONLY) for p in _option_parameters(game)]
    render_mode = _render_mode()
    module = raw_env.__module__
    title = game.title or game.name

    def env(**options: Any) -> LeanChecks:
        return LeanChecks(raw_env(**options))

    env.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [*options, render_mode.replace(kind=inspect.Parameter.KEYWORD_ONLY)], return_annotation=LeanChecks
    )
    env.__doc__ = _ENV_DOC.format(title=title, page=inspect.cleandoc(game.page or ""))
    env.__module__ = module
    env.__qualname__ = "env"

    def vector_env(
        num_envs: int,
        seed: int | None = None,
        copy: bool = True,
        num_threads: int | None = None,
        **options: Any,
    ) -> SelfPlayVectorEnv:
        return SelfPlayVectorEnv(game, num_envs, seed=seed, copy=copy, num_threads=num_threads, **options)

    batch_args = [p for p in inspect.signature(vector_env).parameters.values() if p.name != "options"]
    vector_env.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [*batch_args, *options], return_annotation=SelfPlayVectorEnv
    )
    vector_env.__doc__ = _VECTOR_DOC.format(title=title, rewards=inspect.cleandoc(game.rewards_doc or ""))
    vector_env.__module__ = module
    vector_env.__qualname__ = "vector_env"
    return env, vector_env


def baseline_entry(game: GameDef) -> Callable[..., Any]:
    """Build a game's ``baseline_policy(seat=None, **options)`` with a real signature.

    The function returns the game's shipped trained baseline for a seat
    (:func:`tabletop_core.agents.baseline.baseline_policy`).
    """
    options = [p.replace(kind=inspect.Parameter.KEYWORD_ONLY) for p in _option_parameters(game)]
    title = game.title or game.name

    def baseline_policy(seat: int | str | None = None, **options: Any):
        return _baseline(game, seat, **options)

    seat = inspect.signature(baseline_policy).parameters["seat"]
    baseline_policy.__signature__ = inspect.Signature([seat, *options])  # type: ignore[attr-defined]
    baseline_policy.__doc__ = f"""The trained baseline of {title} (``docs/baselines.md``): an
:class:`~tabletop_core.agents.policy.MLPPolicy` acting greedily over the legal actions,
``policy(obs (B, D) float32, mask (B, A)) -> (B,) int64`` actions.

Args:
    seat: the seat it is to play (index or agent name; default seat 0).
    **options: the game's options; the baseline plays only the options it was trained
        with.

Raises:
    ValueError: other options than the baseline's (the message names them), or a seat
        no baseline plays.
"""
    baseline_policy.__module__ = game.package or __name__
    baseline_policy.__qualname__ = "baseline_policy"
    return baseline_policy
