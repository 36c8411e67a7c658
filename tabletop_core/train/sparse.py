"""The network's first layer over the observation's nonzero entries (the float32 CPU path).

The games' observations are mostly zeros: flags, one-hot cards, planes. The Game's
2-player row has 606 floats of which about 30-40 are nonzero; Exit Now's planes are
sparser still. A dense first layer multiplies every zero by its weight column, forward (``x @
W.T``) and for the weight gradient (``g.T @ x``): in The Game that layer was about two
fifths of the network's multiply-adds. Here each row's nonzero entries are listed once
(:func:`sparse_linear`), the forward pass sums their weight rows and the weight gradient
adds ``x[i, j] * g[i]`` to column ``j`` of the gradient for those entries alone
(:func:`sparse_weight_grad`). The observation needs no gradient, so nothing else is
computed.

Shapes: ``x`` (N, D) float32 observations; ``wt`` (D, H) float32, the layer's weight
transposed (``W.T``, contiguous); ``bias`` (H,) float32; ``out`` (N, H) float32; ``cols``
(N, D) int32 scratch (row ``i``'s nonzero columns, ``count[i]`` of them, in order);
``count`` (N,) int32; ``g`` (N, H) float32 the output's gradient; ``gw`` (H, D) float32
the weight's gradient. All C-contiguous. ``bounds`` (T + 1,) int64
(:func:`~tabletop_core.kernel.jit.shards`) splits the work into ``T`` shards, one per thread of numba's threading layer: rows in the forward
pass, output columns in the gradient, so no two threads write the same float and every
call gives the same floats, whatever the thread count.

The sums run in the order of the nonzero columns, not a matmul's blocked order, so they
differ from a dense layer's in the last bits.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from tabletop_core.kernel.jit import kernel

__all__ = ["SPARSE_DENSITY", "density", "sparse_linear", "sparse_weight_grad"]

SPARSE_DENSITY = 0.25
"""The largest fraction of nonzero observation entries at which the trainer takes the
sparse first layer; a denser observation runs the dense matmul, which is faster there."""


def density(x: np.ndarray) -> float:
    """The fraction of nonzero entries of ``x`` (any shape), 0 for an empty array."""
    return float(np.count_nonzero(x)) / x.size if x.size else 0.0


@kernel(fastmath={"contract"})
def _linear_rows(lo, hi, x, wt, bias, out, cols, count):
    """Rows ``lo:hi`` of :func:`sparse_linear`. The nonzero columns are listed without a
    branch (each column written, the count moved on by the test), and their weight rows
    summed four at a time, so each output float is loaded and stored once per four."""
    d = x.shape[1]
    h = wt.shape[1]
    for i in range(lo, hi):
        c = 0
        for j in range(d):
            cols[i, c] = j
            c += x[i, j] != 0.0
        count[i] = c
        for t in range(h):
            out[i, t] = bias[t]
        q = 0
        while q + 4 <= c:
            j0, j1, j2, j3 = cols[i, q], cols[i, q + 1], cols[i, q + 2], cols[i, q + 3]
            v0, v1, v2, v3 = x[i, j0], x[i, j1], x[i, j2], x[i, j3]
            for t in range(h):
                out[i, t] += (v0 * wt[j0, t] + v1 * wt[j1, t]) + (v2 * wt[j2, t] + v3 * wt[j3, t])
            q += 4
        for r in range(q, c):
            j = cols[i, r]
            v = x[i, j]
            for t in range(h):
                out[i, t] += v * wt[j, t]


@kernel(parallel=True)
def sparse_linear(bounds, x, wt, bias, out, cols, count):
    """``out = x @ wt + bias`` over each row's nonzero entries of ``x``, which it lists in
    ``cols``/``count`` for :func:`sparse_weight_grad`; rows ``bounds[k]:bounds[k + 1]``
    on thread ``k``."""
    for k in prange(bounds.shape[0] - 1):
        _linear_rows(bounds[k], bounds[k + 1], x, wt, bias, out, cols, count)


@kernel(fastmath={"contract"})
def _weight_grad_cols(t0, t1, x, g, cols, count, block, gw):
    """Output columns ``t0:t1`` of :func:`sparse_weight_grad`, summed in ``block`` (D, at
    least ``t1 - t0``) float32, this thread's own scratch, then written transposed to rows
    ``t0:t1`` of ``gw``. Threads that added into one shared array, each to its own columns,
    ran slower than one thread alone. ``g``'s columns are indexed unsigned, so the compiler
    knows no index wraps and vectorises the inner loop."""
    base = np.uint64(t0)
    w = t1 - t0
    d = block.shape[0]
    for j in range(d):
        for t in range(w):
            block[j, t] = 0.0
    for i in range(g.shape[0]):
        for q in range(count[i]):
            j = cols[i, q]
            v = x[i, j]
            for t in range(w):
                block[j, t] += v * g[i, base + np.uint64(t)]
    for t in range(w):
        for j in range(d):
            gw[t0 + t, j] = block[j, t]


@kernel(parallel=True)
def sparse_weight_grad(bounds, x, g, cols, count, blocks, gw):
    """``gw = g.T @ x``, the weight's gradient ((H, D) float32, a ``torch.nn.Linear``
    weight's layout), over the nonzero entries :func:`sparse_linear` listed, the samples in
    order; output columns ``bounds[k]:bounds[k + 1]`` on thread ``k``, summed in
    ``blocks[k]`` (``blocks`` (T, D, W) float32 scratch, ``W`` at least the widest
    shard)."""
    for k in prange(bounds.shape[0] - 1):
        _weight_grad_cols(bounds[k], bounds[k + 1], x, g, cols, count, blocks[k], gw)
