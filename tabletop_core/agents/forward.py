"""The greedy forward pass of an :class:`~tabletop_core.agents.policy.MLPPolicy` as one
compiled loop over the rows of a batch.

Each row is computed on its own, in a fixed order, so a row's action does not depend on
the other rows of the batch: a match that plays its games in a batch picks the same
actions as one that plays them one at a time. The loop skips what a greedy choice does
not need: the first layer adds only the weight rows of the nonzero observation values,
and the last layer computes only the logits of the legal actions.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from functools import cache

import numpy as np

from tabletop_core.kernel.mlp import greedy_actions

__all__ = ["PackedMLP", "greedy_actions"]


THREAD_ROWS = 512
"""A batch shares its rows among the process's cores, at least this many rows each (the
kernel releases the GIL; each row is computed alone, so the actions do not change)."""


@cache
def _cores() -> int:
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)


@cache
def _pool() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(_cores(), thread_name_prefix="greedy")


def _writable(a) -> np.ndarray:
    """``a`` as a C-contiguous, writable float32 array (copied only where it is not one).
    The compiled loop indexes the layers as one tuple of one array type, and a
    deserializer (Ray's, numpy's zero-copy pickles) may hand back some arrays read-only and
    others not."""
    return np.require(a, np.float32, ("C", "W"))


class PackedMLP:
    """An MLP's weights in the layout :func:`greedy_actions` reads.

    Args:
        layers: ``[(W (n_k, n_k+1), b (n_k+1,)), ...]`` float arrays, input to logits.
        scale: (D,) multiplied into the observation first, or None.
        relu: the hidden activation is ``relu`` (else ``tanh``).
        pieces: ((offset, size), ...) of the action pieces; gains: (k,) float32.

    Attributes:
        weights: one C-contiguous float32 ``W`` per layer, input-major, except the last,
            stored action-major (transposed) so a legal action's logit reads one row.
        biases: one float32 ``b`` per layer.
    """

    def __init__(self, layers, scale, relu: bool, pieces, gains):
        ws = [_writable(w) for w, _ in layers]
        ws[-1] = _writable(ws[-1].T)
        self.weights = tuple(ws)
        self.biases = tuple(_writable(b).reshape(-1) for _, b in layers)
        d = layers[0][0].shape[0]
        self.scale = np.ones(d, np.float32) if scale is None else _writable(scale)
        self.relu = bool(relu)
        self.pieces = np.array(pieces, np.int64).reshape(-1, 2)
        self.gains = _writable(gains).reshape(-1)

    @property
    def args(self) -> tuple:
        """``(scale, weights, biases, relu, pieces, gains)``: the network as the compiled
        code takes it (:mod:`tabletop_core.kernel.mlp`)."""
        return (self.scale, self.weights, self.biases, self.relu, self.pieces, self.gains)

    def __setstate__(self, state: dict) -> None:
        """Unpickled (a copy sent to another process, e.g. a Ray worker): the arrays are
        made writable again, as :meth:`__init__` makes them."""
        self.__dict__.update(state)
        self.weights = tuple(_writable(w) for w in self.weights)
        self.biases = tuple(_writable(b) for b in self.biases)
        self.scale, self.gains = _writable(self.scale), _writable(self.gains)

    def __call__(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Greedy legal actions (B,) int64 for ``obs`` (B, D) and ``mask`` (B, A)."""
        obs = np.ascontiguousarray(obs, np.float32)
        mask = np.ascontiguousarray(mask, np.int8)
        out = np.empty(obs.shape[0], np.int64)
        args = self.args
        parts = min(_cores(), obs.shape[0] // THREAD_ROWS)
        if parts <= 1:
            greedy_actions(obs, mask, *args, out)
            return out
        bounds = np.linspace(0, obs.shape[0], parts + 1).astype(np.int64)
        spans = [slice(int(a), int(b)) for a, b in zip(bounds[:-1], bounds[1:])]
        for _ in _pool().map(lambda rows: greedy_actions(obs[rows], mask[rows], *args, out[rows]), spans):
            pass
        return out
