"""Masked sampling in compiled code, one generator word per env.

Each row's legal actions are read from its action mask, their softmax weights
``exp(logit - max)`` summed, and one uniform draw is walked down their cumulative sum
(inverse-CDF sampling): one random number and one logarithm per row, where the Gumbel-max
trick this replaced drew a number and took two logarithms per legal action. Measured at
batch 4096 x 393 actions (25 legal per row) on this machine: 0.98 ms against 1.99 ms for
the Gumbel-max kernel, same run; ``torch.distributions.Categorical(...).sample()``
(multinomial) took 29 ms at batch 1024.
"""

from __future__ import annotations

import numpy as np

from ..jit import kernel
from ..rng import next_u64

__all__ = ["masked_sample"]


@kernel
def masked_sample(logits, masks, rng, actions, logp):
    """Sample one legal action per row and its log-probability.

    Args:
        logits: (N, A) float32 action logits.
        masks: (N, A) int8 or bool action masks (nonzero = legal; every row needs one).
        rng: (N,) uint64 generator words (SplitMix64, :mod:`tabletop_core.rng`), advanced.
        actions: (N,) int64 out: the sampled actions.
        logp: (N,) float32 out: their log-probability under the masked softmax.
    """
    n, a = logits.shape
    legal = np.empty(a, np.int64)
    weight = np.empty(a, np.float64)
    for i in range(n):
        # one branch-free pass over the mask collects the legal actions (a handful of ~400)
        c = 0
        for k in range(a):
            legal[c] = k
            c += masks[i, k] != 0
        hi = -np.inf
        for j in range(c):
            z = logits[i, legal[j]]
            if z > hi:
                hi = z
        s = 0.0
        for j in range(c):
            w = np.exp(np.float64(logits[i, legal[j]]) - hi)
            weight[j] = w
            s += w
        # u in (0, s): walk the cumulative weights to the first that reaches it
        u = (np.float64(next_u64(rng, i) >> np.uint64(11)) + 0.5) * (1.0 / 9007199254740992.0) * s
        j = 0
        acc = weight[0]
        while acc < u and j < c - 1:
            j += 1
            acc += weight[j]
        actions[i] = legal[j]
        logp[i] = np.float32(np.log(weight[j]) - np.log(s))


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
