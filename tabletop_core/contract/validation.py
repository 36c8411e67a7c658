"""Helpers for the one validation of a saved state each game writes (``<game>/state.py``).

A game's ``validate_state(saved)`` checks every field of a State (a ``get_state()`` dict
or the structured array itself) with a :class:`StateChecker`: ranges field by field,
then the cross-field invariants its rules rely on, all as NumPy expressions over the
batch axis (one pass for a batch of 4096). The first violation raises a ``ValueError``
naming the env index, the field, the value found and what is allowed. Nothing runs per
step: ``set_state`` calls it once, before anything is written.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tabletop_core.kernel.records import at

__all__ = ["StateChecker", "states_of", "check_legal_action_exists", "row_counts"]


def states_of(saved: Any, dtype: np.dtype, game: str) -> np.ndarray:
    """The State array of ``saved``: a ``get_state()`` dict (``saved["state"]``) or the
    structured array itself, of shape ``(B,)`` (a 0-d record is taken as ``(1,)``).

    Raises:
        ValueError: not a dict with ``"state"`` nor an array of ``dtype``.
    """
    st = saved.get("state") if isinstance(saved, dict) else saved
    if not isinstance(st, np.ndarray) or st.dtype != dtype:
        raise ValueError(
            f"{game}: expected a get_state() dict or a State array of {game}'s dtype, "
            f"got {type(st).__name__}" + (f" of dtype {st.dtype}" if isinstance(st, np.ndarray) else "")
        )
    if st.ndim == 0:
        st = st.reshape(1)
    if st.ndim != 1:
        raise ValueError(f"{game}: a State has shape (B,), got shape {st.shape}")
    return st


def row_counts(rows: np.ndarray, values: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """``out[r, v]`` = how many times ``(rows, values)`` (broadcast together) holds
    ``(r, v)``; ``out`` has ``shape`` (B, W) int64 and every value lies in ``0..W-1``
    (one ``bincount``, much faster than ``np.add.at``)."""
    r, v = np.broadcast_arrays(np.asarray(rows, np.int64), np.asarray(values, np.int64))
    n, w = shape
    return np.bincount((r * w + v).ravel(), minlength=n * w).reshape(n, w)


class StateChecker:
    """Raise a ``ValueError`` for the first env whose field breaks a rule.

    Args:
        states: the ``(B,)`` State array.
        game: game name for messages.
    """

    def __init__(self, states: np.ndarray, game: str):
        self.s = states
        self.game = game
        self.n = states.shape[0]

    def fail(self, field: str, bad: np.ndarray, allowed: str, values: np.ndarray | None = None) -> None:
        """Raise if any entry of ``bad`` (shape ``(B, ...)``, True = broken) is set.

        ``values`` (same leading shape; default the field itself) gives the value quoted in
        the message: the first broken entry of the first broken env.
        """
        bad = np.asarray(bad, bool)
        if bad.ndim == 0:
            bad = np.broadcast_to(bad, (self.n,))
        flat = bad.reshape(self.n, -1)
        rows = flat.any(axis=1)
        if not rows.any():
            return
        i = int(np.argmax(rows))
        j = int(np.argmax(flat[i]))
        if values is None and field in (self.s.dtype.names or ()):
            values = self.s[field]
        where = ""
        got = ""
        if values is not None:
            v = np.asarray(values)
            if v.ndim > 1 and v[i].size == flat.shape[1]:
                idx = np.unravel_index(j, v[i].shape)
                where = "[" + ", ".join(str(int(k)) for k in idx) + "]"
                got = f" is {v[i][idx].item()!r}"
            elif v.ndim >= 1 and v[i].size == 1:
                got = f" is {v[i].item()!r}"
            elif v.ndim >= 1:
                got = f" is {v[i].tolist()!r}"
        raise ValueError(f"{self.game} saved state, env {i}: {field}{where}{got}; allowed: {allowed}")

    def range(
        self, field: str, lo: Any, hi: Any, where: np.ndarray | None = None, allowed: str | None = None
    ) -> None:
        """Every entry of ``field`` lies in ``lo..hi`` (inclusive; bounds may be ``(B,)``
        arrays, broadcast over the field's trailing axes). ``where``: only these entries
        (``(B, ...)`` boolean, broadcast like the bounds)."""
        v = self.s[field].astype(np.int64)
        extra = (1,) * (v.ndim - 1)
        lo_b = np.asarray(lo).reshape(np.shape(lo) + extra) if np.ndim(lo) == 1 else lo
        hi_b = np.asarray(hi).reshape(np.shape(hi) + extra) if np.ndim(hi) == 1 else hi
        bad = (v < lo_b) | (v > hi_b)
        if where is not None:
            w = np.asarray(where, bool)
            if w.ndim == 1 and v.ndim > 1:
                w = w.reshape(w.shape + extra)
            bad &= w
        if allowed is None:
            lo_s = lo if np.ndim(lo) == 0 else f"{int(np.min(lo))}.."
            hi_s = hi if np.ndim(hi) == 0 else f"..{int(np.max(hi))} (per env)"
            allowed = f"{lo_s}..{hi_s}" if np.ndim(lo) == 0 and np.ndim(hi) == 0 else f"{lo_s}{hi_s}"
        self.fail(field, bad, allowed, v)

    def equal(self, field: str, expected: np.ndarray, allowed: str, where: np.ndarray | None = None) -> None:
        """``field`` equals ``expected`` (broadcast) entry by entry (where ``where``)."""
        v = self.s[field]
        bad = v != expected
        if where is not None:
            w = np.asarray(where, bool)
            if w.ndim == 1 and bad.ndim > 1:
                w = w.reshape(w.shape + (1,) * (bad.ndim - 1))
            bad &= w
        self.fail(field, bad, allowed, v)


def check_legal_action_exists(
    states: np.ndarray, legal_mask_r: Callable, num_actions: int, playing: np.ndarray, game: str
) -> None:
    """Every env still playing offers at least one legal action (the rules' own record
    kernel ``legal_mask_r(e, masks (B, A) i8, row) -> count``, run on the already
    range-checked State).

    Raises:
        ValueError: naming the first env whose acting seat has no legal action.
    """
    out = np.zeros((1, num_actions), np.int8)
    for i in np.flatnonzero(playing):
        if at(legal_mask_r, states, int(i), out, 0) <= 0:
            raise ValueError(
                f"{game} saved state, env {int(i)}: the acting seat (current = {int(states['current'][i])}) "
                "has no legal action while the game is playing; allowed: a position the rules can reach "
                "(phase, acting seat and cards consistent)"
            )
