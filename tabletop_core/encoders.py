"""Observation encoders: named pieces written into one flat float32 buffer.

A game declares its observation as an ordered list of named pieces (name, shape). An
:class:`ObservationLayout` turns that list into offsets (``layout.offset["hand"]``) that
the numba observation kernels use as compile-time constants, and decodes a flat vector
back into the named pieces (:meth:`ObservationLayout.decode`). The small ``write_*``
kernels below fill a slice of the buffer: one-hot, multi-hot card sets, counts.

Pattern after OpenSpiel's ``kuhn_poker.py`` (``pieces = [("player", 2, (2,)), ...]``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .jit import kernel

__all__ = [
    "ObservationLayout",
    "write_one_hot",
    "write_multi_hot",
    "write_counts",
    "write_scalar",
]


class ObservationLayout:
    """An ordered set of named observation pieces laid out in one flat float32 vector.

    Args:
        pieces: ``(name, shape)`` pairs in buffer order; ``shape`` is a tuple of ints
            (``()`` for a scalar).

    Attributes:
        offset: ``{name: first index in the flat vector}``.
        size: ``{name: number of floats}``.
        shape: ``{name: shape}``.
        dim: total length of the flat vector.

    Raises:
        ValueError: on a duplicate name or a negative dimension.
    """

    def __init__(self, pieces: Sequence[tuple[str, tuple[int, ...]]]):
        self.pieces = [(str(n), tuple(int(d) for d in s)) for n, s in pieces]
        self.offset: dict[str, int] = {}
        self.size: dict[str, int] = {}
        self.shape: dict[str, tuple[int, ...]] = {}
        pos = 0
        for name, shape in self.pieces:
            if name in self.offset:
                raise ValueError(f"duplicate observation piece {name!r}")
            if any(d < 0 for d in shape):
                raise ValueError(f"observation piece {name!r} has a negative dimension {shape}")
            n = int(np.prod(shape)) if shape else 1
            self.offset[name] = pos
            self.size[name] = n
            self.shape[name] = shape
            pos += n
        self.dim = pos

    def decode(self, vector: np.ndarray) -> dict[str, np.ndarray]:
        """Split a flat observation (``(dim,)``, or batched ``(..., dim)``) into pieces.

        Returns:
            ``{name: array}`` with each piece reshaped to its declared shape (batch axes
            kept in front); scalars come back as 0-d arrays (or ``(...,)`` batched).

        Raises:
            ValueError: if the last axis of ``vector`` is not ``dim`` long.
        """
        v = np.asarray(vector)
        if v.ndim == 0 or v.shape[-1] != self.dim:
            raise ValueError(f"observation vector must have last dimension {self.dim}, got shape {v.shape}")
        lead = v.shape[:-1]
        out = {}
        for name, shape in self.pieces:
            o, n = self.offset[name], self.size[name]
            out[name] = v[..., o : o + n].reshape(lead + shape)
        return out

    def __repr__(self) -> str:
        inner = ", ".join(f"{n}{list(s)}@{self.offset[n]}" for n, s in self.pieces)
        return f"ObservationLayout(dim={self.dim}: {inner})"


@kernel
def write_one_hot(out, offset, index, n):
    """Write a one-hot of length ``n`` at ``out[offset:]``; ``index`` < 0 writes zeros."""
    for k in range(n):
        out[offset + k] = 0.0
    if 0 <= index < n:
        out[offset + index] = 1.0


@kernel
def write_multi_hot(out, offset, items, count, base):
    """Write a multi-hot card set: ``out[offset + items[k] - base] = 1`` for k < count.

    The caller zeroes the slice first (so several sets can be OR-ed into one slice).
    """
    for k in range(count):
        out[offset + items[k] - base] = 1.0


@kernel
def write_counts(out, offset, counts, scale):
    """Write ``counts`` (1-D, any int dtype) times ``scale`` at ``out[offset:]``."""
    for k in range(counts.shape[0]):
        out[offset + k] = counts[k] * scale


@kernel
def write_scalar(out, offset, value):
    """Write one float at ``out[offset]``."""
    out[offset] = value
