"""The public entry points of a game package, made once for every game.

Each game package exposes ``raw_env`` (its :class:`~tabletop_core.envs.aec.TabletopAECEnv`
subclass, whose ``__init__`` lists the game's options with their defaults), ``env`` (the
same wrapped in :class:`~tabletop_core.envs.aec.LeanChecks`) and ``vector_env`` (a
:class:`~tabletop_core.envs.vector.SelfPlayVectorEnv`). :func:`entry_points` builds the last
two from ``raw_env`` so that

* ``inspect.signature(<game>.env)`` and ``help(<game>.env)`` show the game's options and
  their defaults (the signature is ``raw_env``'s, so it cannot drift from it), and
  ``vector_env``'s shows the batch arguments followed by the same options;
* ``help(<game>.env)`` reaches the game's documentation page (the docstring of
  ``<game>/env.py``, which points at ``docs/rules/<game>.md``);
* no game writes these wrappers again.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from tabletop_core.contract.game import GameDef
from tabletop_core.envs.aec import LeanChecks, TabletopAECEnv
from tabletop_core.envs.vector import SelfPlayVectorEnv

__all__ = ["entry_points"]

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


def entry_points(
    game: GameDef, raw_env: type[TabletopAECEnv], title: str, page: str | None, rewards: str
) -> tuple[Callable[..., LeanChecks], Callable[..., SelfPlayVectorEnv]]:
    """Build a game's ``env`` and ``vector_env`` from its ``raw_env`` class.

    Args:
        game: the game's :class:`~tabletop_core.contract.game.GameDef`.
        raw_env: the game's AEC env class; its ``__init__`` declares the options.
        title: the game's name as people write it (``"The Game"``).
        page: the game's documentation page (the docstring of ``<game>/env.py``).
        rewards: one paragraph on the vector env's rewards (shape and meaning).

    Returns:
        ``(env, vector_env)``, with real signatures (``inspect.signature``) and docstrings.
    """
    options = [
        p.replace(kind=inspect.Parameter.KEYWORD_ONLY)
        for p in inspect.signature(raw_env).parameters.values()
        if p.name != "render_mode"
    ]
    render_mode = inspect.signature(raw_env).parameters["render_mode"]
    module = raw_env.__module__

    def env(**options: Any) -> LeanChecks:
        return LeanChecks(raw_env(**options))

    env.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [*options, render_mode.replace(kind=inspect.Parameter.KEYWORD_ONLY)], return_annotation=LeanChecks
    )
    env.__doc__ = _ENV_DOC.format(title=title, page=inspect.cleandoc(page or ""))
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
    vector_env.__doc__ = _VECTOR_DOC.format(title=title, rewards=inspect.cleandoc(rewards))
    vector_env.__module__ = module
    vector_env.__qualname__ = "vector_env"
    return env, vector_env


def baseline_entry(game: GameDef, raw_env: type[TabletopAECEnv], title: str) -> Callable[..., Any]:
    """Build a game's ``baseline_policy(seat=None, **options)`` with a real signature.

    The function returns the game's shipped trained baseline for a seat
    (:func:`tabletop_core.agents.baseline.baseline_policy`).
    """
    from tabletop_core.agents.baseline import baseline_policy as _baseline

    options = [
        p.replace(kind=inspect.Parameter.KEYWORD_ONLY)
        for p in inspect.signature(raw_env).parameters.values()
        if p.name != "render_mode"
    ]

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
    baseline_policy.__module__ = raw_env.__module__
    baseline_policy.__qualname__ = "baseline_policy"
    return baseline_policy
