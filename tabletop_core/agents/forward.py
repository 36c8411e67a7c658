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

from tabletop_core.kernel.jit import kernel
from tabletop_core.kernel.mathf import tanh_f32

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
        args = (self.scale, self.weights, self.biases, self.relu, self.pieces, self.gains)
        parts = min(_cores(), obs.shape[0] // THREAD_ROWS)
        if parts <= 1:
            greedy_actions(obs, mask, *args, out)
            return out
        bounds = np.linspace(0, obs.shape[0], parts + 1).astype(np.int64)
        spans = [slice(int(a), int(b)) for a, b in zip(bounds[:-1], bounds[1:])]
        for _ in _pool().map(lambda rows: greedy_actions(obs[rows], mask[rows], *args, out[rows]), spans):
            pass
        return out


@kernel(fastmath=True)
def _activate(x, relu):
    for h in range(x.shape[0]):
        v = x[h]
        x[h] = (v if v > 0.0 else np.float32(0.0)) if relu else tanh_f32(v)


@kernel(fastmath=True)
def _first_layer(obs, i, scale, w, b, x):
    """``x = (obs[i] * scale) @ w + b``, adding only the rows of nonzero inputs."""
    for h in range(x.shape[0]):
        x[h] = b[h]
    for j in range(obs.shape[1]):
        v = obs[i, j]
        if v != 0.0:
            v = v * scale[j]
            row = w[j]
            for h in range(x.shape[0]):
                x[h] += v * row[h]


@kernel(fastmath=True)
def _dense(x, rows, w, b, y):
    """``y[r] = x[r] @ w + b`` for ``r < rows`` (``w`` input-major): each weight row is
    read once for the block of rows, and each ``y[r, h]`` sums over the inputs in order."""
    nout = w.shape[1]
    for r in range(rows):
        for h in range(nout):
            y[r, h] = b[h]
    for j in range(w.shape[0]):
        wj = w[j]
        for r in range(rows):
            v = x[r, j]
            yr = y[r]
            for h in range(nout):
                yr[h] += v * wj[h]


@kernel(fastmath=True)
def _best_legal(obs, mask, i, x, wt, b, pieces, gains):
    """The legal action of row ``i`` with the largest logit (the first on a tie; 0 when
    none is legal); ``wt`` is the last layer, action-major."""
    best = 0
    best_logit = np.float32(0.0)
    found = False
    for a in range(mask.shape[1]):
        if mask[i, a] == 0:
            continue
        row = wt[a]
        logit = b[a]
        for j in range(x.shape[0]):
            logit += x[j] * row[j]
        for p in range(pieces.shape[0]):
            if a < pieces[p, 1]:
                logit += gains[p] * obs[i, pieces[p, 0] + a]
        if not found or logit > best_logit:
            best, best_logit, found = a, logit, True
    return best


BLOCK = 16
"""Rows computed together in the hidden layers: each weight row is read once a block."""


@kernel(fastmath=True)
def greedy_actions(obs, mask, scale, weights, biases, relu, pieces, gains, out):
    """``out[i]``: the greedy legal action of observation ``obs[i]`` (B, D) float32 under
    ``mask[i]`` (B, A) int8, for the packed MLP (:class:`PackedMLP`: ``weights`` and
    ``biases`` tuples, one per layer). One thread; each row's sums in a fixed order,
    independent of the other rows."""
    layers = len(weights)
    width = obs.shape[1]
    for k in range(layers - 1):
        width = max(width, weights[k].shape[1])
    buf = np.empty((2, BLOCK, width), np.float32)
    for start in range(0, obs.shape[0], BLOCK):
        rows = min(BLOCK, obs.shape[0] - start)
        n = obs.shape[1]
        for r in range(rows):
            if layers == 1:  # no hidden layer: the logits read the scaled observation
                for j in range(n):
                    buf[0, r, j] = obs[start + r, j] * scale[j]
            else:
                _first_layer(obs, start + r, scale, weights[0], biases[0], buf[0, r, : weights[0].shape[1]])
                _activate(buf[0, r, : weights[0].shape[1]], relu)
        if layers > 1:
            n = weights[0].shape[1]
        for k in range(1, layers - 1):
            m = weights[k].shape[1]
            _dense(buf[(k - 1) % 2, :, :n], rows, weights[k], biases[k], buf[k % 2, :, :m])
            for r in range(rows):
                _activate(buf[k % 2, r, :m], relu)
            n = m
        last = buf[max(layers - 2, 0) % 2]
        for r in range(rows):
            out[start + r] = _best_legal(
                obs, mask, start + r, last[r, :n], weights[layers - 1], biases[layers - 1], pieces, gains
            )
