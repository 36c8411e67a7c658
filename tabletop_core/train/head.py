"""The actor-critic head at the legal actions only, as dot products (the float32 CPU path).

The update needs, of the head's ``A + 1`` outputs a sample (``A`` action logits and the
value), only the logits of the sample's legal actions (:func:`~tabletop_core.train.sample.legal_index`:
``K`` columns, padding repeating a column) and the value. A dense head computes all
``A + 1`` and gathers ``K + 1``; here each kept output is one dot product of the sample's
features with its weight row, and the backward pass touches those rows alone. The Game
has ``A = 393`` and ``K`` about 30: about a thirteenth of the dense head's
multiply-adds, forward and backward, which were close to half the network's.

Shapes: ``z`` (N, H) float32 features; ``weight`` (A + 1, H) float32, the actor's rows
then the critic's; ``bias`` (A + 1,) float32; ``index`` (N, K) int64 action columns in
``[0, A)``. All C-contiguous. ``bounds`` (T + 1,) int64
(:func:`~tabletop_core.kernel.jit.shards`) splits the update's kernels over ``T``
threads: rows for the logits and the features' gradient, feature columns for the weight
gradient, so no two threads write the same float.

:func:`gain_grads` gives the action pieces' gains their gradient from the legal logits'
(``docs/training.md``, "Action pieces"), in both CPU updates (the fused bfloat16 one and
the float32 one).
"""

from __future__ import annotations

import numpy as np
from numba import prange

from tabletop_core.kernel.jit import kernel

__all__ = ["gain_grads", "legal_logits", "legal_grad_input", "legal_grad_weight", "logits_at"]


@kernel(fastmath={"reassoc", "contract", "nsz", "arcp"})
def _logits_rows(lo, hi, z, weight, bias, index, logits, value):
    """Rows ``lo:hi`` of :func:`legal_logits`."""
    k = index.shape[1]
    a = weight.shape[0] - 1
    for i in range(lo, hi):
        j = 0
        while j + 1 < k:
            c0 = index[i, j]
            c1 = index[i, j + 1]
            s0, s1 = _two_dots(z, i, weight, c0, c1)
            logits[i, j] = s0 + bias[c0]
            logits[i, j + 1] = s1 + bias[c1]
            j += 2
        c0 = index[i, k - 1] if j < k else a  # an odd K: its last logit beside the value
        s0, s1 = _two_dots(z, i, weight, c0, a)
        if j < k:
            logits[i, j] = s0 + bias[c0]
        value[i] = s1 + bias[a]


@kernel(parallel=True)
def legal_logits(bounds, z, weight, bias, index, logits, value):
    """``logits[i, j] = z[i] . weight[index[i, j]] + bias[index[i, j]]`` ((N, K) float32
    out) and ``value[i] = z[i] . weight[A] + bias[A]`` ((N,) float32 out); rows
    ``bounds[k]:bounds[k + 1]`` on thread ``k``.

    Two outputs share each pass over a feature row; the sums are reassociated (vectorised),
    so they differ from a matmul's in the last bits, the same on every call.
    """
    for s in prange(bounds.shape[0] - 1):
        _logits_rows(bounds[s], bounds[s + 1], z, weight, bias, index, logits, value)


@kernel(inline="always")
def _two_dots(z, i, weight, c0, c1):
    """``(z[i] . weight[c0], z[i] . weight[c1])`` in one pass over ``z[i]``."""
    s0 = np.float32(0.0)
    s1 = np.float32(0.0)
    for t in range(z.shape[1]):
        x = z[i, t]
        s0 += x * weight[c0, t]
        s1 += x * weight[c1, t]
    return s0, s1


@kernel(fastmath={"contract"})
def _grad_input_rows(lo, hi, grad_logits, grad_value, index, weight, grad_z):
    """Rows ``lo:hi`` of :func:`legal_grad_input`."""
    k = index.shape[1]
    h = weight.shape[1]
    a = weight.shape[0] - 1
    for i in range(lo, hi):
        g = grad_value[i]
        for t in range(h):
            grad_z[i, t] = g * weight[a, t]
        for j in range(k):
            g = grad_logits[i, j]
            if g != 0.0:
                c = index[i, j]
                for t in range(h):
                    grad_z[i, t] += g * weight[c, t]


@kernel(parallel=True)
def legal_grad_input(bounds, grad_logits, grad_value, index, weight, grad_z):
    """``grad_z[i] = sum_j grad_logits[i, j] * weight[index[i, j]] + grad_value[i] *
    weight[A]`` ((N, H) float32 out): the features' gradient, rows ``bounds[k]:bounds[k +
    1]`` on thread ``k``. A repeated column adds up, as a gather's gradient does."""
    for s in prange(bounds.shape[0] - 1):
        _grad_input_rows(bounds[s], bounds[s + 1], grad_logits, grad_value, index, weight, grad_z)


@kernel(fastmath={"contract"})
def _grad_weight_cols(t0, t1, grad_logits, grad_value, index, z, block, grad_weight):
    """Feature columns ``t0:t1`` of :func:`legal_grad_weight`, summed in ``block`` ((A + 1,
    at least ``t1 - t0``) float32, this thread's own) and then copied into
    ``grad_weight``. ``z``'s columns are indexed unsigned so the inner loop vectorises
    (:func:`tabletop_core.train.sparse.sparse_weight_grad` does the same)."""
    n, k = index.shape
    a = block.shape[0] - 1
    base = np.uint64(t0)
    w = t1 - t0
    for c in range(a + 1):
        for t in range(w):
            block[c, t] = 0.0
    for i in range(n):
        for j in range(k):
            g = grad_logits[i, j]
            if g != 0.0:
                c = index[i, j]
                for t in range(w):
                    block[c, t] += g * z[i, base + np.uint64(t)]
        g = grad_value[i]
        for t in range(w):
            block[a, t] += g * z[i, base + np.uint64(t)]
    for c in range(a + 1):
        for t in range(w):
            grad_weight[c, base + np.uint64(t)] = block[c, t]


@kernel(parallel=True)
def legal_grad_weight(bounds, grad_logits, grad_value, index, z, blocks, grad_weight, grad_bias):
    """The head's parameter gradients: ``grad_weight[c] = sum over (i, j) with index[i, j]
    = c of grad_logits[i, j] * z[i]`` and the value row from ``grad_value`` ((A + 1, H)
    float32 out, zero in the rows no sample reached), ``grad_bias`` the same sums of the
    gradients alone ((A + 1,) float32 out). Feature columns ``bounds[k]:bounds[k + 1]`` on
    thread ``k``, summed in ``blocks[k]`` (``blocks`` (T, A + 1, W) float32 scratch, ``W``
    at least the widest shard). Samples in order: the same floats every call, whatever the
    thread count."""
    for s in prange(bounds.shape[0] - 1):
        _grad_weight_cols(bounds[s], bounds[s + 1], grad_logits, grad_value, index, z, blocks[s], grad_weight)
    n, k = index.shape
    a = grad_bias.shape[0] - 1
    grad_bias[:] = 0.0
    for i in range(n):
        for j in range(k):
            grad_bias[index[i, j]] += grad_logits[i, j]
        grad_bias[a] += grad_value[i]


@kernel(fastmath={"reassoc", "contract", "nsz", "arcp"})
def logits_at(z, i, weight, bias, columns, count, out):
    """``out[j] = z[i] . weight[columns[j]] + bias[columns[j]]`` for ``j < count``: the
    head's outputs at ``columns`` for row ``i`` of ``z`` (the sampler's legal logits and
    the value, :func:`~tabletop_core.train.sample.sample_legal_dots`)."""
    h = z.shape[1]
    for j in range(count):
        c = columns[j]
        s = np.float32(0.0)
        for t in range(h):
            s += z[i, t] * weight[c, t]
        out[j] = s + bias[c]


@kernel
def gain_grads(grad_logits, pieces, pidx, scale, out):
    """``out[j] = scale * sum_{i, k} grad_logits[i, k] * pieces[pidx[i], j, k]`` (summed in
    float64): the action pieces' gains' gradient from the legal logits' ``grad_logits``
    (N, K) float32; ``pieces`` (P, J, K) float32, ``pidx`` (N,) int64, ``out`` (J,) float32."""
    n, k = grad_logits.shape
    acc = np.zeros((out.shape[0], k))  # one sum per column: the inner loop runs in vector lanes
    for i in range(n):
        p = pidx[i]
        for j in range(out.shape[0]):
            for c in range(k):
                acc[j, c] += grad_logits[i, c] * pieces[p, j, c]
    for j in range(out.shape[0]):
        out[j] = scale * acc[j].sum()
