"""Observation encoders: named pieces written into one flat float32 buffer in [0, 1].

A game declares its observation as an ordered list of named pieces
``(name, shape, high, kind)``. ``high`` is the documented largest value of the piece in
game units (a card value, a count, a round); the observation holds ``value / high``, so
every entry lies in [0, 1] and ``observation_space`` is exactly ``Box(0, 1, (D,))``.
``kind`` says how a piece is encoded:

* ``"flag"``: 0 or 1 per entry (a card held, a square with a wall); multi-hot sets;
* ``"one_hot"``: a categorical value (seat, phase, area kind) as one 1 among zeros
  (all zeros where the piece says "none");
* ``"count"``: an integer value ``0..high`` (counts, card values, rounds, scores), stored
  as ``value * (1 / high)``; ``high`` may be one number or one per entry (``shape``).

An :class:`ObservationLayout` turns that list into offsets (``layout.offset["hand"]``)
and reciprocal scales (``layout.scale["hand"]``, float32) that the numba observation
kernels use as compile-time constants (a multiply per entry, no Python pass), and decodes
a flat vector back into the named pieces in game units (:meth:`ObservationLayout.decode`).

Pattern after OpenSpiel's ``kuhn_poker.py`` (``pieces = [("player", 2, (2,)), ...]``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

__all__ = [
    "KINDS",
    "check_action_inputs",
    "Piece",
    "ObservationLayout",
]

KINDS = ("flag", "one_hot", "count")
"""How a piece is encoded (module docstring)."""


class Piece(NamedTuple):
    """One named observation piece.

    Attributes:
        name: the piece's name (``decode`` key).
        shape: its shape (``()`` for a scalar).
        high: the largest value in game units (a number, or an array of ``shape`` for one
            per entry); the observation holds ``value / high``. 1 for flags and one-hots.
        kind: ``"flag"``, ``"one_hot"`` or ``"count"`` (module docstring).
    """

    name: str
    shape: tuple[int, ...]
    high: float | np.ndarray = 1.0
    kind: str = "flag"


class ObservationLayout:
    """An ordered set of named observation pieces laid out in one flat float32 vector,
    every entry in [0, 1].

    Args:
        pieces: :class:`Piece` s or tuples ``(name, shape[, high[, kind]])`` in buffer
            order; ``shape`` is a tuple of ints (``()`` for a scalar); ``high`` defaults
            to 1 and ``kind`` to ``"flag"`` (``"count"`` when ``high`` is given).

    Attributes:
        offset: ``{name: first index in the flat vector}``.
        size: ``{name: number of floats}``.
        shape: ``{name: shape}``.
        high: ``{name: largest value in game units, a float or a (size,) float64 array}``.
        scale: ``{name: 1 / high as float32 (a scalar or a (size,) array)}``, the factor
            the observation kernels multiply by.
        kind: ``{name: kind}``.
        dim: total length of the flat vector.

    Raises:
        ValueError: on a duplicate name, a negative dimension, an unknown kind, a
            ``high`` that is not positive or does not fit the shape, or a flag/one-hot
            piece with ``high`` other than 1.
    """

    def __init__(self, pieces: Sequence[Piece | tuple]):
        self.pieces: list[Piece] = []
        self.offset: dict[str, int] = {}
        self.size: dict[str, int] = {}
        self.shape: dict[str, tuple[int, ...]] = {}
        self.high: dict[str, float | np.ndarray] = {}
        self.scale: dict[str, np.float32 | np.ndarray] = {}
        self.kind: dict[str, str] = {}
        pos = 0
        for piece in pieces:
            if not 2 <= len(piece) <= 4:
                raise ValueError(f"an observation piece is (name, shape[, high[, kind]]), got {piece!r}")
            name, shape = str(piece[0]), tuple(int(d) for d in piece[1])
            high = piece[2] if len(piece) > 2 else 1.0
            kind = piece[3] if len(piece) > 3 else ("count" if len(piece) > 2 else "flag")
            if name in self.offset:
                raise ValueError(f"duplicate observation piece {name!r}")
            if any(d < 0 for d in shape):
                raise ValueError(f"observation piece {name!r} has a negative dimension {shape}")
            if kind not in KINDS:
                raise ValueError(f"observation piece {name!r}: kind must be one of {KINDS}, got {kind!r}")
            n = int(np.prod(shape)) if shape else 1
            h = np.asarray(high, np.float64)
            if h.ndim == 0:
                h = float(h)
                ok = h > 0
            else:
                if h.size != n:
                    raise ValueError(f"observation piece {name!r}: high has {h.size} entries, shape {shape}")
                h = h.reshape(n)
                ok = bool((h > 0).all())
            if not ok:
                raise ValueError(f"observation piece {name!r}: high must be > 0, got {high!r}")
            if kind != "count" and not np.all(np.asarray(h) == 1.0):
                raise ValueError(f"observation piece {name!r}: a {kind} piece has high 1, got {high!r}")
            self.pieces.append(Piece(name, shape, h, kind))
            self.offset[name] = pos
            self.size[name] = n
            self.shape[name] = shape
            self.high[name] = h
            # float32 division, as a kernel computing the reciprocal itself would: v * (1 / v)
            # never rounds above 1
            one = np.float32(1.0)
            self.scale[name] = one / np.float32(h) if isinstance(h, float) else one / h.astype(np.float32)
            self.kind[name] = kind
            pos += n
        self.dim = pos

    def digest(self) -> str:
        """A 16-hex-digit hash of the pieces' names, shapes and scales (``high``): what a
        trained policy records of the observation it was trained on, so that a changed
        observation is an error when the policy loads, not silent nonsense."""

        text = ";".join(
            f"{p.name}:{','.join(map(str, p.shape))}:{np.asarray(p.high, np.float64).tolist()!r}"
            for p in self.pieces
        )
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def decode(self, vector: np.ndarray) -> dict[str, np.ndarray]:
        """Split a flat observation (``(dim,)``, or batched ``(..., dim)``) into pieces in
        game units.

        Returns:
            ``{name: float32 array}`` with each piece reshaped to its declared shape
            (batch axes kept in front; scalars come back as 0-d arrays, or ``(...,)``
            batched). Flags and one-hots are returned as stored (0/1); counts as
            ``round(stored * high)``: the card values, counts and rounds themselves.

        Raises:
            ValueError: if the last axis of ``vector`` is not ``dim`` long.
        """
        v = np.asarray(vector)
        if v.ndim == 0 or v.shape[-1] != self.dim:
            raise ValueError(f"observation vector must have last dimension {self.dim}, got shape {v.shape}")
        lead = v.shape[:-1]
        out = {}
        for name, shape, high, kind in self.pieces:
            o, n = self.offset[name], self.size[name]
            x = v[..., o : o + n]
            if kind == "count":
                x = np.rint(x.astype(np.float64) * high).astype(np.float32)
            out[name] = x.reshape(lead + shape)
        return out

    def __repr__(self) -> str:
        inner = ", ".join(f"{p.name}{list(p.shape)}@{self.offset[p.name]}" for p in self.pieces)
        return f"ObservationLayout(dim={self.dim}: {inner})"


def check_action_inputs(inputs: Any, obs_dim: int, num_actions: int) -> tuple[tuple[int, int], ...]:
    """Action pieces' places ``((offset, size), ...)`` as int tuples, each checked to lie in
    ``obs_dim`` observation entries and to cover 1 to ``num_actions`` actions.

    Raises:
        ValueError: a piece that does not fit, naming its entries and what is allowed.
    """
    out = tuple((int(o), int(n)) for o, n in np.asarray(inputs, np.int64).reshape(-1, 2))
    for o, n in out:
        if o < 0 or n < 1 or o + n > obs_dim or n > num_actions:
            raise ValueError(
                f"action piece at observation entries {o}..{o + n - 1}: it must lie in the "
                f"{obs_dim} entries and cover 1 to {num_actions} actions"
            )
    return out
