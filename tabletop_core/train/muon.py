"""Muon for the trunk's weight matrices (``tabletop train --optimizer muon``).

Muon (Jordan et al., 2024; PufferLib 3's default optimizer) is SGD with Nesterov momentum
whose update of each 2-D weight is replaced by the nearest semi-orthogonal matrix, found by
five Newton-Schulz iterations. Only the hidden layers' weights take it; the heads and the
biases stay with Adam (:class:`~tabletop_core.train.trainer.Trainer` splits them). The
step is scaled as Moonshot's "Muon is Scalable for LLM Training" does (``0.2 *
sqrt(max(rows, cols))``), so the update has Adam's RMS and the same ``--lr`` serves both.

``torch.optim.Muon`` does the same arithmetic, but runs the iterations in bfloat16, which
on a CPU takes a slow path, far slower than float32 (``docs/training.md``, "Muon and a
doubled learning rate", has the figures). No weight decay, as the trainer's Adam has none.
"""

from __future__ import annotations

from collections.abc import Iterable

import torch

__all__ = ["Muon", "orthogonalize"]

_NS = (3.4445, -4.775, 2.0315)  # Jordan's quintic Newton-Schulz coefficients


def orthogonalize(g: torch.Tensor, steps: int = 5) -> torch.Tensor:
    """The Newton-Schulz approximation of ``U V^T`` for ``g = U S V^T`` (2-D float32,
    any shape; the result has its shape and singular values near 1, between about 0.6
    and 1.3 after five steps: Jordan's coefficients trade exactness for speed).

    Raises:
        ValueError: ``g`` is not 2-D.
    """
    if g.dim() != 2:
        raise ValueError(f"orthogonalize takes a 2-D matrix, got shape {tuple(g.shape)}")
    a, b, c = _NS
    tall = g.size(0) > g.size(1)
    x = g.T.contiguous() if tall else g
    x = x / (x.norm() + 1e-7)  # spectral norm at most 1
    for _ in range(steps):
        m = x @ x.T
        x = torch.addmm(x, torch.addmm(m, m, m, beta=b, alpha=c), x, beta=a)
    return x.T if tall else x


class Muon(torch.optim.Optimizer):
    """Muon over 2-D float32 parameters: momentum ``mu`` (Nesterov), then each
    parameter moves by ``-lr * 0.2 * sqrt(max(rows, cols)) * orthogonalize(update)``.

    Args:
        params: the weight matrices (2-D), or parameter groups of them.
        lr: the learning rate (the trainer sets it each update, as Adam's).
        momentum: ``mu``, in [0, 1).
        ns_steps: Newton-Schulz iterations, at least 1.

    Raises:
        ValueError: a parameter that is not 2-D, ``lr`` not positive, ``momentum`` outside
            [0, 1) or ``ns_steps`` below 1.

    Parameters without a gradient are skipped. The momentum buffers are the optimizer's
    state (``state_dict()`` round-trips them, as the trainer's checkpoints need).
    """

    def __init__(
        self, params: Iterable[torch.Tensor], lr: float = 1e-3, momentum: float = 0.95, ns_steps: int = 5
    ):
        if not lr > 0:
            raise ValueError(f"Muon: lr must be positive, got {lr}")
        if not 0 <= momentum < 1:
            raise ValueError(f"Muon: momentum must be in [0, 1), got {momentum}")
        if int(ns_steps) < 1:
            raise ValueError(f"Muon: ns_steps must be at least 1, got {ns_steps}")
        super().__init__(params, {"lr": lr, "momentum": momentum, "ns_steps": int(ns_steps)})
        for group in self.param_groups:
            for p in group["params"]:
                if p.dim() != 2:
                    raise ValueError(
                        f"Muon takes weight matrices (2-D), got a parameter of shape {tuple(p.shape)}"
                    )

    @torch.no_grad()
    def step(self, closure=None):
        """One step on every parameter with a gradient (``closure``: as torch's optimizers)."""
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            mu = group["momentum"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if not state:
                    state["momentum_buffer"] = torch.zeros_like(p)
                buf = state["momentum_buffer"]
                buf.mul_(mu).add_(p.grad)
                update = p.grad.add(buf, alpha=mu)  # Nesterov
                scale = 0.2 * max(p.shape) ** 0.5
                p.add_(
                    orthogonalize(update.float(), group["ns_steps"]).to(p.dtype), alpha=-group["lr"] * scale
                )
        return loss
