"""Masked Gumbel-max sampling in compiled code, one generator word per env.

``argmax over legal a of (logit[a] - log(-log u_a))`` is distributed as the softmax over
the legal actions (the Gumbel-max trick). Here it reads each row's action mask and draws
noise only for the legal actions, so it costs a pass over the mask plus a few dozen
logarithms per row. Measured at batch 1024 x 393 actions on this machine: ~1 ms, where
``torch.distributions.Categorical(...).sample()`` (multinomial) took 29 ms and a torch
Gumbel-max over the whole row 4.4 ms (25 ms under load).
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
        best = -np.inf
        arg = legal[0]
        s = 0.0
        for j in range(c):
            k = legal[j]
            z = np.float64(logits[i, k])
            s += np.exp(z - hi)
            u = (np.float64(next_u64(rng, i) >> np.uint64(11)) + 0.5) * (1.0 / 9007199254740992.0)
            g = z - np.log(-np.log(u))
            if g > best:
                best = g
                arg = k
        actions[i] = arg
        logp[i] = np.float32(np.float64(logits[i, arg]) - hi - np.log(s))


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
