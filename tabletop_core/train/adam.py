"""Gradient clipping and the Adam step in one compiled pass (the CPU trainer's update).

``nn.utils.clip_grad_norm_`` and ``torch.optim.Adam(fused=True)`` take a dozen torch
operations a minibatch over the network's eight parameter tensors (a norm per tensor,
their norm, a scale, then Adam's kernel), each with its own dispatch, which on a few cores
costs more than their arithmetic.
:func:`clip_and_adam` does the same arithmetic in two passes over the parameters. The
moments and step counts stay in ``torch.optim.Adam``'s own state, so checkpoints and
``--resume`` work with either path.
"""

from __future__ import annotations

import math

import numpy as np
import torch

from tabletop_core.kernel.jit import kernel

__all__ = ["clip_and_adam", "compiled_step"]


@kernel(fastmath={"reassoc"})
def _grad_norm(grads):
    """The 2-norm of all of ``grads`` (a tuple of 1-D float32 arrays), summed in float64
    (reassociated, so the sum runs in vector lanes)."""
    total = 0.0
    for t in range(len(grads)):
        g = grads[t]
        for i in range(g.shape[0]):
            x = np.float64(g[i])
            total += x * x
    return math.sqrt(total)


@kernel
def clip_and_adam(params, grads, exp_avgs, exp_avg_sqs, max_norm, lr, beta1, beta2, eps, step):
    """Scale ``grads`` to a total 2-norm of at most ``max_norm`` (as ``clip_grad_norm_``:
    by ``min(1, max_norm / (norm + 1e-6))``), then take Adam step number ``step`` (from 1)
    as ``torch.optim.Adam``'s fused CPU kernel does: no weight decay, no AMSGrad.

    Args:
        params: tuple of 1-D float32 arrays, one per parameter tensor (views of the
            tensors: updated in place).
        grads: their gradients, the same shapes (read only: the clipping scale is
            applied on the fly).
        exp_avgs: Adam's first moments, the same shapes (updated in place).
        exp_avg_sqs: Adam's second moments, the same shapes (updated in place).
        max_norm: the gradients' largest total 2-norm.
        lr: the learning rate.
        beta1: the first moment's decay.
        beta2: the second moment's decay.
        eps: added to the second moment's square root.
        step: the step's number, counted from 1 (its bias corrections).

    Returns:
        The gradients' total norm before clipping (float).
    """
    norm = _grad_norm(grads)
    coef = max_norm / (norm + 1e-6)
    scale = np.float32(coef if coef < 1.0 else 1.0)
    step_size = np.float32(lr / (1.0 - beta1**step))
    bc2_sqrt = np.float32(math.sqrt(1.0 - beta2**step))
    b2, e = np.float32(beta2), np.float32(eps)
    one_b1, one_b2 = np.float32(1.0 - beta1), np.float32(1.0 - beta2)
    for t in range(len(params)):
        p, g, m, v = params[t], grads[t], exp_avgs[t], exp_avg_sqs[t]
        for i in range(p.shape[0]):
            gi = g[i] * scale
            mi = m[i] + one_b1 * (gi - m[i])
            vi = b2 * v[i] + one_b2 * gi * gi
            m[i] = mi
            v[i] = vi
            p[i] -= step_size * mi / (np.sqrt(vi) / bc2_sqrt + e)
    return norm


def compiled_step(optim: torch.optim.Adam, max_norm: float) -> float:
    """Clip the gradients of ``optim``'s parameters and take its Adam step with
    :func:`clip_and_adam`, keeping the optimizer's state (``step``, ``exp_avg``,
    ``exp_avg_sq``) as torch keeps it. CPU float32 parameters in one group, every one with a
    gradient; returns the total norm before clipping.

    Raises:
        ValueError: if the optimizer uses weight decay, AMSGrad or several parameter
            groups, or a parameter has no gradient.
    """
    if len(optim.param_groups) != 1:
        raise ValueError(f"compiled_step takes one parameter group, got {len(optim.param_groups)}")
    group = optim.param_groups[0]
    if group.get("weight_decay", 0) or group.get("amsgrad", False):
        raise ValueError("compiled_step is plain Adam: no weight decay, no AMSGrad")
    params = group["params"]
    if any(p.grad is None for p in params):
        raise ValueError("compiled_step needs a gradient for every parameter (after backward)")
    states = []
    for p in params:
        st = optim.state[p]
        if not st:  # as torch.optim.Adam initialises it on its first step
            st["step"] = torch.tensor(0.0)
            st["exp_avg"] = torch.zeros_like(p, memory_format=torch.preserve_format)
            st["exp_avg_sq"] = torch.zeros_like(p, memory_format=torch.preserve_format)
        st["step"] += 1
        states.append(st)
    beta1, beta2 = group["betas"]
    with torch.no_grad():
        for p, st in zip(params, states):
            _match_layout(p, st)
        return clip_and_adam(
            tuple(_flat(p.detach()) for p in params),
            tuple(_flat(p.grad) for p in params),
            tuple(_flat(st["exp_avg"]) for st in states),
            tuple(_flat(st["exp_avg_sq"]) for st in states),
            float(max_norm),
            float(group["lr"]),
            float(beta1),
            float(beta2),
            float(group["eps"]),
            float(states[0]["step"]),
        )


def _match_layout(p: torch.Tensor, st: dict) -> None:
    """Give ``p``'s gradient and Adam moments ``p``'s memory layout, so that :func:`_flat`
    lists the four in one order (a weight stored transposed,
    :attr:`~tabletop_core.train.model.Agent.sparse_input`, with moments restored from a
    checkpoint written before it was)."""
    if p.grad.stride() != p.stride():
        p.grad = torch.empty_like(p).copy_(p.grad)
    for key in ("exp_avg", "exp_avg_sq"):
        if st[key].stride() != p.stride():
            st[key] = torch.empty_like(p).copy_(st[key])


def _flat(t: torch.Tensor) -> np.ndarray:
    """A 1-D NumPy view of ``t``'s elements in memory order (``t`` dense: contiguous, or
    a transposed contiguous matrix)."""
    return (t if t.is_contiguous() else t.t()).view(-1).numpy()
