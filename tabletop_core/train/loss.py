"""The PPO loss and its gradient in one compiled pass (the CPU trainer's update).

Optimization of :func:`ppo.ppo_loss <tabletop_core.train.ppo.ppo_loss>` and its backward
pass: the same loss, faster because the softmax, entropy, ratio and their gradients take a
few compiled passes instead of torch's ~80 small operations.

For each minibatch sample the loss needs the log-softmax of the legal actions' logits, its
entropy, the probability ratio against the rollout's policy and the value error; torch
runs ~40 small operations forward and as many backward for that, each a pass over the
(N, K) logits with its own dispatch. :func:`ppo_loss_grad` makes a few passes over the
logits, transposed so that the samples run across vector lanes, writes the gradient of
the loss with respect to the logits and the value, and returns the minibatch's
statistics; the trainer hands those gradients to autograd for the network's
backward pass (``torch.autograd.backward``).

The exponentials are :func:`~tabletop_core.kernel.mathf.exp_nonpositive`, a polynomial that
LLVM vectorises (numba's ``np.exp`` is a scalar call per element, which keeps a loop from
vectorising).

Definitions (CleanRL's PPO, as :func:`~tabletop_core.train.ppo.ppo_loss` writes them in
torch): advantages normalised per minibatch (mean 0, unbiased std 1, ``+ 1e-8``);
``pg = mean(max(-a r, -a clip(r, 1 - c, 1 + c)))``; ``v = 0.5 mean((V - R)^2)``; ``H``
the mean entropy; ``loss = pg + vf_coef v - ent_coef H``.
"""

from __future__ import annotations

import math

import numpy as np
import torch

from tabletop_core.kernel.bits import prefetch, prefetch_row
from tabletop_core.kernel.jit import kernel
from tabletop_core.kernel.mathf import exp_nonpositive

__all__ = ["ppo_loss_grad", "minibatch_loss_grad", "PG_LOSS", "V_LOSS", "ENTROPY", "APPROX_KL", "CLIPFRAC"]

PG_LOSS, V_LOSS, ENTROPY, APPROX_KL, CLIPFRAC = range(5)
"""Positions of the statistics in :func:`ppo_loss_grad`'s ``out``."""


@kernel
def _normalised_advantage(adv, idx):
    """Mean and ``1 / (unbiased std + 1e-8)`` of ``adv[idx]`` (float64)."""
    n = idx.shape[0]
    s = 0.0
    for i in range(n):
        s += adv[idx[i]]
    mean = s / n
    ss = 0.0
    for i in range(n):
        d = adv[idx[i]] - mean
        ss += d * d
    std = math.sqrt(ss / (n - 1)) if n > 1 else 0.0
    return mean, 1.0 / (std + 1e-8)


PREFETCH_AHEAD = 16
"""How many samples ahead a minibatch's compiled gathers (:func:`ppo_loss_grad`'s first
pass, :func:`~tabletop_core.train.fused.legal_head`) hint the rows of the rollout's arrays
a sample will read: a sample's rows sit at random places in arrays larger than the cache."""


@kernel
def _gather_transposed(logits, idx, lbias, lpos, old_logp, adv, ret, zt):
    """``zt[j, i] = logits[i, j] + lbias[idx[i], j]``: the biased logits with the samples
    along the fast axis, so that every later pass runs across samples in vector lanes
    (summed row by row, then transposed: a transposing gather was 4x slower). Hints the
    rows of ``lbias`` and the entries of ``lpos``, ``old_logp``, ``adv`` and ``ret`` the
    samples :data:`PREFETCH_AHEAD` ahead read, here or in the later passes."""
    n, k = logits.shape
    z = np.empty((n, k), np.float32)
    for i in range(n):
        if i + PREFETCH_AHEAD < n:
            ahead = idx[i + PREFETCH_AHEAD]
            prefetch_row(lbias, ahead)
            prefetch(lpos, ahead * lpos.strides[0])
            prefetch(old_logp, ahead * old_logp.strides[0])
            prefetch(adv, ahead * adv.strides[0])
            prefetch(ret, ahead * ret.strides[0])
        row = idx[i]
        for j in range(k):
            z[i, j] = logits[i, j] + lbias[row, j]
    zt[:, :] = z.T


@kernel
def _softmax_columns(zt, pt, lse, h):
    """Per sample (column) of ``zt`` (K, N): ``pt`` the softmax, ``lse`` the log-sum-exp
    and ``h`` the entropy (no term for a probability of 0: a padded action)."""
    k, n = zt.shape
    for i in range(n):
        lse[i] = zt[0, i]
    for j in range(1, k):
        for i in range(n):
            lse[i] = zt[j, i] if zt[j, i] > lse[i] else lse[i]
    for i in range(n):
        h[i] = np.float32(0.0)  # the sum of the exponentials, for now
    for j in range(k):
        for i in range(n):
            e = exp_nonpositive(zt[j, i] - lse[i])
            pt[j, i] = e
            h[i] += e
    for i in range(n):
        s = h[i]
        lse[i] += np.log(s)
        h[i] = np.float32(1.0) / s
    for j in range(k):
        for i in range(n):
            pt[j, i] *= h[i]
    for i in range(n):
        h[i] = np.float32(0.0)
    for j in range(k):
        for i in range(n):
            p = pt[j, i]
            h[i] -= p * (zt[j, i] - lse[i]) if p != np.float32(0.0) else np.float32(0.0)


@kernel
def ppo_loss_grad(
    logits, idx, lbias, lpos, old_logp, adv, ret, value, clip, vf_coef, ent_coef, g_logits, g_value, out
):
    """The PPO loss's statistics and its gradient for one minibatch (module docstring):
    optimization of :func:`ppo.ppo_loss <tabletop_core.train.ppo.ppo_loss>` with its
    backward pass to the logits and values, faster because it is a few compiled passes.

    Args:
        logits: (N, K) float32 logits of each sample's legal actions (the network's
            ``legal_forward``).
        idx: (N,) int64 the samples' rows in the rollout arrays below.
        lbias: (M, K) float32 0 on a legal action, ``NEG`` on the padding.
        lpos: (M,) int64 the taken action's position among the legal ones.
        old_logp: (M,) float32 the rollout's log-probabilities of the taken actions.
        adv: (M,) float32 the rollout's advantages (normalised here, per minibatch).
        ret: (M,) float32 the rollout's returns.
        value: (N,) float32 the network's values.
        clip: the ratio's clip range ``c``.
        vf_coef: the value loss's weight.
        ent_coef: the entropy's weight.
        g_logits: (N, K) float32 out, d loss / d logits (0 on the padding).
        g_value: (N,) float32 out, d loss / d value.
        out: (5,) float64 out: pg loss, value loss, entropy, approx KL, clip fraction
            (positions :data:`PG_LOSS` ...).
    """
    n, k = logits.shape
    zt = np.empty((k, n), np.float32)
    pt = np.empty((k, n), np.float32)
    lse = np.empty(n, np.float32)
    h = np.empty(n, np.float32)
    g_logp = np.empty(n, np.float32)
    _gather_transposed(logits, idx, lbias, lpos, old_logp, adv, ret, zt)
    _softmax_columns(zt, pt, lse, h)
    _sample_terms(zt, lse, h, idx, lpos, old_logp, adv, ret, value, clip, vf_coef, g_logp, g_value, out)
    _logit_grads(zt, pt, lse, h, g_logp, np.float32(ent_coef) * np.float32(1.0 / n), idx, lpos, g_logits)


@kernel(inline="always")
def _sample_terms(zt, lse, h, idx, lpos, old_logp, adv, ret, value, clip, vf_coef, g_logp, g_value, out):
    """Per sample ``i`` of :func:`ppo_loss_grad`: the clipped objective's and the value
    loss's terms, summed into ``out`` (means); ``g_logp[i]``, d loss / d log pi(taken),
    and ``g_value[i]`` (inlined into :func:`ppo_loss_grad`)."""
    n = idx.shape[0]
    mean, inv_std = _normalised_advantage(adv, idx)
    inv_n = np.float32(1.0 / n)
    lo = np.float32(1.0 - clip)
    hi = np.float32(1.0 + clip)
    pg = 0.0
    vl = 0.0
    ent = 0.0
    kl = 0.0
    cf = 0.0
    for i in range(n):
        row = idx[i]
        log_ratio = zt[lpos[row], i] - lse[i] - old_logp[row]
        r = np.exp(log_ratio)
        a = np.float32((adv[row] - mean) * inv_std)
        rc = lo if r < lo else (hi if r > hi else r)
        t1 = -a * r
        t2 = -a * rc
        pg += t1 if t1 >= t2 else t2
        g_logp[i] = (-a if t1 >= t2 else np.float32(0.0)) * r * inv_n  # d loss / d log pi(taken)
        dv = value[i] - ret[row]
        vl += 0.5 * dv * dv
        g_value[i] = np.float32(vf_coef) * dv * inv_n
        ent += h[i]
        kl += (r - 1.0) - log_ratio
        cf += 1.0 if abs(r - 1.0) > clip else 0.0
    out[PG_LOSS] = pg / n
    out[V_LOSS] = vl / n
    out[ENTROPY] = ent / n
    out[APPROX_KL] = kl / n
    out[CLIPFRAC] = cf / n


@kernel(inline="always")
def _logit_grads(zt, pt, lse, h, g_logp, ce, idx, lpos, g_logits):
    """d loss / d logits of :func:`ppo_loss_grad` into ``g_logits`` (N, K), from the
    softmax ``pt`` (K, N, overwritten), ``g_logp`` and ``ce`` = ent_coef / N (inlined into
    :func:`ppo_loss_grad`)."""
    k, n = pt.shape
    for j in range(k):  # d loss / d z = p (ent_coef / N (log p + H) - g_logp) + g_logp [taken]
        for i in range(n):
            p = pt[j, i]
            pt[j, i] = p * (
                (ce * (zt[j, i] - lse[i] + h[i]) if p != np.float32(0.0) else np.float32(0.0)) - g_logp[i]
            )
    g_logits[:, :] = pt.T
    for i in range(n):
        g_logits[i, lpos[idx[i]]] += g_logp[i]


def minibatch_loss_grad(batch, idx, logits, value, clip: float, vf_coef: float, ent_coef: float):
    """:func:`ppo_loss_grad` on minibatch ``idx`` ((N,) int64 torch tensor) of the trainer's
    batch (``lbias``, ``lpos``, ``old_logp``, ``advs``, ``rets``: CPU tensors over its
    samples), from the network's legal logits ``logits`` (N, K) and values ``value`` (N,),
    float32 CPU tensors (read detached).

    Returns:
        ``(g_logits, g_value, stats)``: float32 tensors shaped as ``logits`` and
        ``value``, and the (5,) float64 statistics (:data:`PG_LOSS` ...).
    """
    logits, value = logits.detach().contiguous(), value.detach().contiguous()
    g_logits, g_value, stats = torch.empty_like(logits), torch.empty_like(value), np.empty(5)
    ppo_loss_grad(
        logits.numpy(),
        idx.numpy(),
        batch.lbias.numpy(),
        batch.lpos.numpy(),
        batch.old_logp.numpy(),
        batch.advs.numpy(),
        batch.rets.numpy(),
        value.numpy(),
        clip,
        vf_coef,
        ent_coef,
        g_logits.numpy(),
        g_value.numpy(),
        stats,
    )
    return g_logits, g_value, stats
