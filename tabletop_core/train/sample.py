"""Masked sampling in compiled code, one generator word per env.

Each row's legal actions are read from its action mask, their softmax weights
``exp(logit - max)`` summed, and one uniform draw is walked down their cumulative sum
(inverse-CDF sampling): one random number and one logarithm per row, where the Gumbel-max
trick this replaced drew a number and took two logarithms per legal action, and
``torch.distributions.Categorical(...).sample()`` (multinomial) is far slower still.
"""

from __future__ import annotations

import numpy as np
from numba import prange
from numba.core import types
from numba.extending import overload

from tabletop_core.kernel.bits import bf16_bits, bf16_value, ctz, read_bits_row
from tabletop_core.kernel.jit import kernel
from tabletop_core.kernel.rng import next_u64
from tabletop_core.train.head import logits_at

__all__ = [
    "masked_sample",
    "sample_legal_dots",
    "legal_index",
    "max_legal",
    "scatter_head_grad",
]

_U0 = np.uint64(0)
_U1 = np.uint64(1)


@kernel
def masked_sample(logits, masks, rng, actions, logp, extra=None):
    """Sample one legal action per row and its log-probability: optimization of
    :func:`ppo.sample_actions <tabletop_core.train.ppo.sample_actions>`'s draw (same
    distribution, from the env's own generator words), faster because it reads only the
    legal entries of each row (inverse CDF) in compiled code.

    Args:
        logits: (N, A) float32 action logits, or int16 holding bfloat16 bits (the fused
            network's output, read in place: converting the whole (4096, 393) output to
            float32 for the ~25 legal entries a row reads cost more than the sampling).
        masks: (N, A) int8 or bool action masks (nonzero = legal; every row needs one).
        rng: (N,) uint64 generator words (SplitMix64, :mod:`tabletop_core.kernel.rng`), advanced.
        actions: (N,) int64 out: the sampled actions.
        logp: (N,) float32 out: their log-probability under the masked softmax.
        extra: None, or (N, E) float32 added to the logits of actions ``0..E - 1`` (the
            action pieces' term, :meth:`~tabletop_core.train.model.Agent.action_term`),
            in float32 after the logit's conversion.
    """
    if extra is None:
        _masked_rows(logits, np.zeros((0, 0), np.float32), masks, rng, actions, logp)
    else:
        _masked_rows(logits, extra, masks, rng, actions, logp)


@kernel
def _masked_rows(logits, extra, masks, rng, actions, logp):
    """:func:`masked_sample` with ``extra`` an array ((N, 0) for none)."""
    n, a = logits.shape
    legal = np.empty(a, np.int64)
    z = np.empty(a, np.float32)
    weight = np.empty(a, np.float32)
    words = np.empty((a + 63) // 64, np.uint64)
    for i in range(n):
        c = _legal_of_row(masks, i, a, words, legal)
        for j in range(c):
            z[j] = _logit(logits, i, legal[j])
            if legal[j] < extra.shape[1]:
                z[j] += extra[i, legal[j]]
        j = _draw(z, c, weight, rng, i, logp)
        actions[i] = legal[j]


@kernel(parallel=True)
def sample_legal_dots(bounds, features, head_weight, head_bias, extra, masks, rng, actions, logp, value):
    """Optimization of :func:`ppo.sample_actions <tabletop_core.train.ppo.sample_actions>`
    (the float32 CPU path): :func:`masked_sample` from the network's last hidden features, each legal logit one
    dot product with its head row (:func:`~tabletop_core.train.head.logits_at`) instead of
    all A from a dense head; the same draws from the same logits. Rows ``bounds[k]:bounds[k
    + 1]`` on thread ``k`` (``bounds`` (T + 1,) int64,
    :func:`~tabletop_core.kernel.jit.shards`); each row draws from its own generator
    word, so the draws do not depend on the thread count.

    Args:
        features: (N, H) float32 the trunk's output.
        head_weight: (A + 1, H) float32 the actor's rows, then the critic's.
        head_bias: (A + 1,) float32.
        extra: (N, E) float32, added to the logits of actions ``0..E - 1`` (the action
            pieces' term, :meth:`~tabletop_core.train.model.Agent.action_term`; ``E = 0``
            for none).
        masks, rng, actions, logp: as :func:`masked_sample`.
        value: (N,) float32 out: the critic's value of each row.

    Returns the number of legal actions over all rows (the logits computed).
    """
    total = 0
    for s in prange(bounds.shape[0] - 1):
        total += _sample_dots_rows(
            bounds[s],
            bounds[s + 1],
            features,
            head_weight,
            head_bias,
            extra,
            masks,
            rng,
            actions,
            logp,
            value,
        )
    return total


@kernel
def _sample_dots_rows(lo, hi, features, head_weight, head_bias, extra, masks, rng, actions, logp, value):
    """Rows ``lo:hi`` of :func:`sample_legal_dots`; returns their legal actions' count."""
    a = masks.shape[1]
    legal = np.empty(a + 1, np.int64)
    z = np.empty(a + 1, np.float32)
    weight = np.empty(a, np.float32)
    words = np.empty((a + 63) // 64, np.uint64)
    total = 0
    for i in range(lo, hi):
        c = _legal_of_row(masks, i, a, words, legal)
        legal[c] = a  # the value's row, beside the logits
        logits_at(features, i, head_weight, head_bias, legal, c + 1, z)
        value[i] = z[c]
        for j in range(c):
            if legal[j] < extra.shape[1]:
                z[j] += extra[i, legal[j]]
        j = _draw(z, c, weight, rng, i, logp)
        actions[i] = legal[j]
        total += c
    return total


@kernel(inline="always")
def _legal_of_row(masks, i, a, words, legal):
    """The legal actions of row ``i`` into ``legal``, ascending; returns their count. The
    mask is read as bit words (vector loads), then one step per legal action (a handful
    of ~400), not a pass over every entry."""
    read_bits_row(masks, i, a, words)
    c = 0
    for k in range(words.shape[0]):
        x = words[k]
        while x != _U0:
            legal[c] = k * 64 + np.int64(ctz(x))
            c += 1
            x &= x - _U1
    return c


@kernel(inline="always")
def _draw(z, c, weight, rng, i, logp):
    """One draw of row ``i`` from the softmax of the ``c`` logits ``z[:c]``: returns its
    place in ``z`` and writes its log-probability to ``logp[i]``."""
    hi = np.float32(-np.inf)
    for j in range(c):
        hi = max(hi, z[j])
    # float32 exp (expf, in a loop of its own), cheaper than float64 exp; the sum and the
    # logarithms stay float64
    for j in range(c):
        weight[j] = np.exp(z[j] - hi)
    s = 0.0
    for j in range(c):
        s += weight[j]
    # u in (0, s): walk the cumulative weights to the first that reaches it
    u = (np.float64(next_u64(rng, i) >> np.uint64(11)) + 0.5) * (1.0 / 9007199254740992.0) * s
    j = 0
    acc = np.float64(weight[0])
    while acc < u and j < c - 1:
        j += 1
        acc += weight[j]
    logp[i] = np.float32(np.log(np.float64(weight[j])) - np.log(s))
    return j


@kernel
def legal_index(masks, actions, width, index, valid, position):
    """The legal actions of each row as a short padded list, for a loss over them only.

    Args:
        masks: (N, A) bool/int8 action masks. actions: (N,) int64 taken actions (legal).
        width: ``K``, at least the largest number of legal actions in a row.
        index: (N, K) int64 out: the legal actions, padded with the row's first one.
        valid: (N, K) bool out: True where ``index`` holds a legal action (not padding).
        position: (N,) int64 out: where the taken action sits in ``index``.
    """
    n, a = masks.shape
    for i in range(n):
        c = 0
        for k in range(a):
            if masks[i, k]:
                index[i, c] = k
                if k == actions[i]:
                    position[i] = c
                c += 1
        for j in range(c, width):
            index[i, j] = index[i, 0]
            valid[i, j] = False
        for j in range(c):
            valid[i, j] = True


@kernel
def max_legal(masks):
    """The largest number of legal actions in a row of ``masks`` (N, A)."""
    best = 0
    n, a = masks.shape
    for i in range(n):
        c = 0
        for k in range(a):
            c += masks[i, k] != 0
        best = max(best, c)
    return best


@kernel
def scatter_head_grad(grad_logits, index, grad_value, grad_out, grad_bias, scratch):
    """The gradient of the fused actor-critic head's output, built in one pass.

    Args:
        grad_logits: (N, K) float32 gradient of the logits gathered at ``index``.
        index: (N, K) int64 their action columns (:func:`legal_index`; padding repeats a
            column, so values add up).
        grad_value: (N,) float32 gradient of the value (the last column).
        grad_out: (N, A + 1) int16 out: the bfloat16 bits of the whole gradient (zero where
            no legal action sits), rounded to nearest even.
        grad_bias: (A + 1,) float32 out: its column sums (the bias gradient).
        scratch: (A + 1,) float32 zeros, returned zeroed.

    Torch needed a float32 fill, a scatter-add, a copy to bfloat16 and a column sum over
    the (N, A + 1) gradient for this; here each row is written once.
    """
    n, k = grad_logits.shape
    a1 = grad_out.shape[1]
    for c in range(a1):
        grad_bias[c] = 0.0
    for i in range(n):
        for c in range(a1):
            grad_out[i, c] = 0
        for j in range(k):
            scratch[index[i, j]] += grad_logits[i, j]
        for j in range(k):
            c = index[i, j]
            v = scratch[c]
            if v != 0.0:  # (a repeated column: its first place takes the sum)
                grad_out[i, c] = bf16_bits(v)
                grad_bias[c] += v
                scratch[c] = 0.0
        v = grad_value[i]
        grad_out[i, a1 - 1] = bf16_bits(v)
        grad_bias[a1 - 1] += v


def _logit(logits, i, k):
    """``logits[i, k]`` as a float: float arrays as they are, int16 arrays as bfloat16 bits
    (exact: a bfloat16 is the top half of a float32)."""
    x = logits[i, k]
    if logits.dtype.kind == "f":
        return np.float32(x)
    return np.array([np.int32(x) << 16], np.int32).view(np.float32)[0]


@overload(_logit, jit_options={"nogil": True})
def _logit_compiled(logits, i, k):
    if isinstance(logits.dtype, types.Integer):

        def bf16(logits, i, k):
            return bf16_value(logits[i, k])

        return bf16
    return lambda logits, i, k: logits[i, k]
