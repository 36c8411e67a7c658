"""The policy network and the hot-loop pieces that touch it.

One MLP trunk (``tanh``, as :class:`tabletop_core.policy.MLPPolicy` plays it) with two
heads: action logits and a value. Sharing the trunk halves the FLOPs per sample against
CleanRL's two separate networks; the update is what bounds the trainer's speed here.

:func:`masked_gumbel_sample` draws from the masked softmax with the Gumbel-max trick
(``argmax(logits + Gumbel noise)``) instead of ``torch.distributions.Categorical``, whose
multinomial sample took 29 ms of a 55 ms inference step at batch 1024 on this machine
(Gumbel-max: 4.4 ms).
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

__all__ = ["Agent", "masked_gumbel_sample", "masked_logits", "model_flops_per_sample"]

NEG = -1e9
"""Logit given to illegal actions: exp(NEG - max) is 0 in float32 and bfloat16, and unlike
-inf it keeps ``0 * logit`` finite in the entropy."""


class Agent(nn.Module):
    """Actor-critic MLP: ``obs (N, D) float32 -> (logits (N, A), value (N,))``.

    Args:
        obs_dim: observation length ``D``.
        num_actions: action count ``A``.
        hidden: hidden widths, e.g. ``(256, 256)``.

    Initialisation as CleanRL's PPO: orthogonal, gain sqrt(2) for the trunk, 0.01 for the
    policy head (near-uniform first policy), 1 for the value head; zero biases.
    """

    def __init__(self, obs_dim: int, num_actions: int, hidden: tuple[int, ...] = (256, 256)):
        super().__init__()
        self.obs_dim, self.num_actions, self.hidden = int(obs_dim), int(num_actions), tuple(hidden)
        layers: list[nn.Module] = []
        width = self.obs_dim
        for h in self.hidden:
            lin = nn.Linear(width, h)
            nn.init.orthogonal_(lin.weight, np.sqrt(2))
            nn.init.zeros_(lin.bias)
            layers += [lin, nn.Tanh()]
            width = h
        self.trunk = nn.Sequential(*layers)
        self.actor = nn.Linear(width, self.num_actions)
        self.critic = nn.Linear(width, 1)
        for head, gain in ((self.actor, 0.01), (self.critic, 1.0)):
            nn.init.orthogonal_(head.weight, gain)
            nn.init.zeros_(head.bias)

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        z = self.trunk(obs)
        return self.actor(z), self.critic(z).squeeze(-1)

    def value_only(self, obs: torch.Tensor) -> torch.Tensor:
        """The value from the trunk's features with no gradient into the trunk: what the
        critic warm-up trains, leaving the actor (a cloned policy) untouched."""
        with torch.no_grad():
            z = self.trunk(obs)
        return self.critic(z).squeeze(-1)

    def policy_weights(self) -> dict[str, np.ndarray]:
        """The actor as :class:`~tabletop_core.policy.MLPPolicy` weights (``W0, b0, ...``,
        ``W_k`` of shape (in, out), float32); the value head is left out."""
        linears = [m for m in self.trunk if isinstance(m, nn.Linear)] + [self.actor]
        out: dict[str, np.ndarray] = {}
        for k, lin in enumerate(linears):
            out[f"W{k}"] = lin.weight.detach().to(torch.float32).cpu().numpy().T.copy()
            out[f"b{k}"] = lin.bias.detach().to(torch.float32).cpu().numpy().copy()
        return out


def model_flops_per_sample(obs_dim: int, num_actions: int, hidden: tuple[int, ...]) -> int:
    """Multiply-add FLOPs (2 per weight) of one forward pass for one observation, counted
    from the layer shapes (trunk, policy head and value head)."""
    widths = [obs_dim, *hidden]
    w = sum(a * b for a, b in zip(widths[:-1], widths[1:])) + widths[-1] * (num_actions + 1)
    return 2 * w


def masked_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """``logits`` with illegal actions (``mask`` False) set to :data:`NEG` (``torch.where``:
    measured 2x faster than ``masked_fill(~mask, ...)`` on (16384, 393) here)."""
    return torch.where(mask, logits, torch.tensor(NEG, dtype=logits.dtype, device=logits.device))


def masked_gumbel_sample(
    logits: torch.Tensor, mask: torch.Tensor, generator: torch.Generator | None = None
) -> tuple[torch.Tensor, torch.Tensor]:
    """Sample one legal action per row and its log-probability.

    Args:
        logits: (N, A) float logits. mask: (N, A) bool, True = legal (each row needs one).
        generator: the torch generator to draw from (reproducible runs).

    Returns:
        ``(actions (N,) int64, logp (N,) float32)``: ``argmax(logits - log(-log u))`` over
        the legal actions, which is distributed as the masked softmax, and the
        log-probability of the chosen action under it.
    """
    z = masked_logits(logits.float(), mask)
    # -log(u) for u ~ U(0, 1) is an Exp(1) draw: argmax(z - log(Exp(1))) is Gumbel-max
    e = torch.empty_like(z).exponential_(generator=generator)
    actions = (z - e.log()).argmax(dim=1)
    logp = z.gather(1, actions[:, None]).squeeze(1) - torch.logsumexp(z, dim=1)
    return actions, logp
