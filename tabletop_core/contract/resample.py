"""Determinizations of a saved state: the one Python wrapper every game's
``resample_hidden`` runs its compiled kernel through.

A game's ``<game>/resample.py`` holds a record kernel ``resample_hidden_r(e, seat, w) -> w``
that replaces, in place, everything ``seat`` cannot know in the record ``e`` with a
uniformly random assignment consistent with what ``seat`` has seen, drawing from the
generator word ``w`` (:mod:`tabletop_core.kernel.rng`) and returning the next word; its
hooks name it ``resample_hidden``. The game's public ``resample_hidden(saved, seat, seed)``
is ``GameDef.resample_hidden``, :func:`resample_entry` of that kernel
(:func:`resample_saved`): the checks of the inputs, the copy, and one kernel call per env
of the batch live here, once.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tabletop_core.kernel.rng import check_seed, seed_word

__all__ = ["resample_entry", "resample_saved", "seat_index"]


def seat_index(seat: Any, names: Sequence[str], game: str) -> int:
    """The seat number of ``seat`` (an int ``0..len(names)-1`` or an agent name of ``names``).

    Raises:
        ValueError: naming the bad seat and the seats allowed.
    """
    if isinstance(seat, str):
        if seat not in names:
            raise ValueError(f"{game}: unknown seat {seat!r}; the agents are {', '.join(names)}")
        return list(names).index(seat)
    if isinstance(seat, (bool, np.bool_)) or not isinstance(seat, (int, np.integer)):
        raise ValueError(f"{game}: seat must be an int or an agent name, got {type(seat).__name__}: {seat!r}")
    if not 0 <= int(seat) < len(names):
        raise ValueError(
            f"{game}: seat {int(seat)} out of range; allowed 0..{len(names) - 1} or {', '.join(names)}"
        )
    return int(seat)


def resample_saved(
    game: str,
    state_dtype: np.dtype,
    validate_state: Callable[[Any], None],
    kernel: Callable,
    agents_of: Callable[[np.void], list[str]] | None,
    saved: Any,
    seat: Any,
    seed: Any,
) -> dict:
    """A new ``get_state()`` dict: ``saved`` with every env's record passed through
    ``kernel(e, seat, w)`` (a game's ``resample_hidden_r``); ``saved`` is left untouched.

    Env ``i`` of a batch draws from ``seed_word(seed + i)`` (as a vector env reset with
    ``seed`` seeds its envs), so the determinization of env ``i`` does not depend on the
    batch around it.

    Args:
        game: the game's name (``GameDef.name``): ``saved["game"]`` is ``<game>_v<version>``.
        state_dtype: the game's State dtype.
        validate_state: the game's one validation of a saved State (``<game>/state.py``).
        kernel: the game's ``resample_hidden_r``.
        agents_of: ``record -> agent names`` in seat order (the seats of that game); None:
            seats are taken by number only.
        saved: a ``get_state()`` dict of the game's AEC env (batch 1) or vector env.
        seat: the seat whose view is kept: an int or an agent name.
        seed: an int, ``0 <= seed`` and ``seed + B - 1 < 2**64`` for a batch of ``B``.

    Raises:
        ValueError: ``saved`` not a ``get_state()`` dict of this game, a state the game's
            validation rejects, a bad seat, or a seed that is not an int.
    """
    tag = saved.get("game") if isinstance(saved, dict) else None
    if not isinstance(tag, str) or tag.rpartition("_v")[0] != game or "state" not in saved:
        got = tag if isinstance(saved, dict) else type(saved).__name__
        raise ValueError(f"resample_hidden expects a dict from a {game} env's get_state(), got {got!r}")
    st = np.asarray(saved["state"])
    if st.dtype != state_dtype or st.ndim != 1 or st.shape[0] < 1:
        raise ValueError(
            f"saved state has shape {st.shape} and dtype {st.dtype}; expected a (B,) {game} State"
        )
    if seed is None:
        raise ValueError(f"{game}: seed must be an int, got None")
    check_seed(seed, st.shape[0])
    validate_state(st)
    k = seat_index(seat, agents_of(st[0]), game) if agents_of is not None else _seat_number(seat, game)
    out = {key: copy.deepcopy(value) for key, value in saved.items() if key != "state"}
    new = st.copy()
    for i in range(new.shape[0]):
        kernel(new[i], np.int64(k), seed_word(int(seed) + i))
    out["state"] = new
    return out


def _seat_number(seat: Any, game: str) -> int:
    """``seat`` as a seat number, for a game whose records name no agents."""
    if isinstance(seat, (bool, np.bool_)) or not isinstance(seat, (int, np.integer)) or int(seat) < 0:
        raise ValueError(f"{game}: seat must be an int >= 0, got {type(seat).__name__}: {seat!r}")
    return int(seat)


def resample_entry(
    game: str, title: str, state: Any, kernel: Callable, module: str
) -> Callable[[Any, Any, Any], dict]:
    """A game's public ``resample_hidden(saved, seat, seed) -> dict``: :func:`resample_saved`
    of its kernel over its State (``state``: a :class:`~tabletop_core.contract.game.StateDef`,
    its ``dtype``, ``validate`` and ``agents``), with its own docstring (``module``: the
    package that exports it)."""
    bound = (game, state.dtype, state.validate, kernel, state.agents)

    def resample_hidden(saved: Any, seat: Any, seed: Any) -> dict:
        return resample_saved(*bound, saved, seat, seed)

    resample_hidden.__doc__ = f"""A determinization of ``saved`` (a ``get_state()`` dict of an AEC env or a vector
env: every env is resampled) for ``seat`` (an int or an agent name): a new dict, ``saved``
untouched, that loads with ``set_state`` and shows ``seat`` the same observation and
action mask, everything ``seat`` cannot see dealt again uniformly (``resample_hidden_r``). The same ``seed``
gives the same dict; the consistency rules are in ``docs/rules/{game}.md``.

Raises:
    ValueError: ``saved`` not from a {title} env, an invalid state, a bad seat, or a seed
        outside ``0 <= seed < 2**64`` (for a batch of B envs, ``seed + B - 1`` too).
"""
    resample_hidden.__module__ = module
    resample_hidden.__qualname__ = "resample_hidden"
    return resample_hidden
