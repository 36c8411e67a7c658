"""The fused bfloat16 CPU path's PPO step, forward and backward written out (no autograd).

Optimization of :func:`ppo.ppo_step <tabletop_core.train.ppo.ppo_step>`: same update
within bfloat16 rounding (``tests/test_ppo_reference.py``), faster because the products
run in bfloat16 on oneDNN and no autograd graph, weight cast or gradient copy is paid per
minibatch.

On the fused path (:meth:`~tabletop_core.train.model.Agent.fuse`) a minibatch's products are
a few oneDNN bfloat16 matmuls; around them autograd recorded a graph, cast every weight
to bfloat16 and concatenated the actor and critic heads again, kept float32 copies of the
weight gradients, zeroed them, and the optimizer read them back. :class:`FusedStep` runs
the same products in order with none of that:

* the weights' bfloat16 copies (*shadows*) are kept between minibatches and written by the
  Adam step itself (:func:`~tabletop_core.train.adam.clip_and_adam_bf16`), in one
  ``(A + 1, H)`` block for the actor and critic heads;
* forward: the minibatch's observation rows gathered into a kept buffer, each hidden layer
  one ``linear + activation`` call, the head one call (:func:`~tabletop_core.train.model.Agent.legal_forward`'s
  products);
* the legal logits (with the action pieces' term) and the values read from the head's
  output in one compiled pass (:func:`legal_head`);
* the loss and its gradient with respect to the legal logits and the value
  (:func:`~tabletop_core.train.loss.ppo_loss_grad`), scattered into the head's output
  gradient (:func:`~tabletop_core.train.sample.scatter_head_grad`);
* backward: each layer's input gradient, ``tanh`` / ``relu`` gradient, weight gradient
  (bfloat16, read in place by the Adam step) and bias gradient (summed in float32);
* the action pieces' gains take their gradient as one compiled contraction of the legal
  logits' gradient with the pieces' entries (:func:`~tabletop_core.train.head.gain_grads`).

A minibatch's samples sit at random rows of the rollout's arrays, which are larger than
the cache: the compiled passes that read those rows hint them a few samples ahead
(:data:`~tabletop_core.train.loss.PREFETCH_AHEAD`).

The products, the activations and the weight gradients are those of the autograd path to
the bit; the bias gradients are summed in float32 where that path rounded the sum to
bfloat16, and the gains' in another order (``tests/test_train.py``). The gradients stay
in tensors kept from step to step, which the Adam step reads in place.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from tabletop_core.kernel.bits import bf16_value, prefetch_row
from tabletop_core.kernel.jit import kernel
from tabletop_core.train import model
from tabletop_core.train.adam import KeptGradientsStep
from tabletop_core.train.head import gain_grads
from tabletop_core.train.loss import PREFETCH_AHEAD, minibatch_loss_grad
from tabletop_core.train.model import ACTION_GAIN_SCALE, Agent, ObservationRows, piece_values_of
from tabletop_core.train.sample import scatter_head_grad

__all__ = ["FusedStep", "column_sums", "legal_head"]

_BF16 = torch.bfloat16


@kernel
def column_sums(x, out):
    """``out[c] = sum_i x[i, c]`` in float32, ``x`` (N, C) int16 bfloat16 bits, ``out`` (C,)
    float32: a layer's bias gradient (torch's float32 sum of a bfloat16 matrix first copies
    it to float32)."""
    for c in range(out.shape[0]):
        out[c] = 0.0
    for i in range(x.shape[0]):
        for c in range(out.shape[0]):
            out[c] += bf16_value(x[i, c])


@kernel
def legal_head(out, index, idx, pieces, pidx, gains, lidx, logits, value):
    """The head output's legal logits and value for the loss, in one pass over a minibatch.

    Args:
        out: (N, A + 1) int16, the head output's bfloat16 bits (actor logits, then the value).
        index: (M, K) int64, every rollout sample's legal action columns (padded).
        idx: (N,) int64, the minibatch's samples.
        pieces: (P, J, K) float32, the action pieces' entries at those columns; row
            ``pidx[i]`` is sample ``i``'s (unread where ``J`` is 0).
        pidx: (N,) int64, each minibatch row's row of ``pieces``.
        gains: (J,) float32, the pieces' gains (scaled).
        lidx: (N, K) int64 out: ``index[idx]``.
        logits: (N, K) float32 out: ``out[i, lidx[i, k]]`` plus ``sum_j pieces[p, j, k] *
            gains[j]``, summed in piece order (:func:`~tabletop_core.train.model.piece_sum`).
        value: (N,) float32 out: the value column.

    Torch needed an index select, a gather, a float32 copy, two more copies for the value
    and J + 1 elementwise passes over (N, K) for the action pieces' term. The rows of
    ``index`` and ``pieces`` are hinted
    :data:`~tabletop_core.train.loss.PREFETCH_AHEAD` samples ahead.
    """
    n, k = lidx.shape
    a = out.shape[1] - 1
    jn = gains.shape[0]
    for i in range(n):
        if i + PREFETCH_AHEAD < n:  # the random rows a few samples ahead, from memory
            prefetch_row(index, idx[i + PREFETCH_AHEAD])
            if jn > 0:
                prefetch_row(pieces, pidx[i + PREFETCH_AHEAD])
        s, p = idx[i], pidx[i]
        for c in range(k):
            col = index[s, c]
            lidx[i, c] = col
            x = bf16_value(out[i, col])
            if jn > 0:
                t = pieces[p, 0, c] * gains[0]
                for j in range(1, jn):
                    t = t + pieces[p, j, c] * gains[j]
                x = x + t
            logits[i, c] = x
        value[i] = bf16_value(out[i, a])


class FusedStep(KeptGradientsStep):
    """The PPO step of a fused :class:`~tabletop_core.train.model.Agent` on the CPU:
    optimization of :func:`ppo.ppo_step <tabletop_core.train.ppo.ppo_step>` (module
    docstring): :meth:`gradients` for a minibatch, :meth:`step` for the optimizer step too.
    Call :meth:`refresh` after anything other than :meth:`step` changed the agent's
    parameters or the optimizer's state (a checkpoint, the critic warm-up's steps).

    Args:
        agent: a fused agent (``agent.fused``) on the CPU.

    Raises:
        ValueError: if ``agent`` is not fused or not on the CPU.
    """

    def __init__(self, agent: Agent):
        if not agent.fused or agent.actor.weight.device.type != "cpu":
            raise ValueError("FusedStep runs a fused agent on the CPU (Agent.fuse())")
        self.agent = agent
        self.linears = [m for m in agent.trunk if isinstance(m, nn.Linear)]
        a, h = agent.actor.weight.shape
        # the bfloat16 shadows and the gradients, each head's rows in one (A + 1)-row block
        self.head_w, self.head_b = torch.empty((a + 1, h), dtype=_BF16), torch.empty(a + 1, dtype=_BF16)
        self.w = [torch.empty_like(lin.weight, dtype=_BF16) for lin in self.linears]
        self.b = [torch.empty_like(lin.bias, dtype=_BF16) for lin in self.linears]
        self.g_head_w, self.g_head_b = torch.empty_like(self.head_w), torch.empty(a + 1)
        self.g_w = [torch.empty_like(w) for w in self.w]
        self.g_b = [torch.empty(lin.bias.shape) for lin in self.linears]
        self._shadow: dict[int, torch.Tensor] = {}
        for lin, w, b in zip(self.linears, self.w, self.b):
            self._shadow[id(lin.weight)], self._shadow[id(lin.bias)] = w, b
        for head, rows in ((agent.actor, slice(0, a)), (agent.critic, slice(a, a + 1))):
            self._shadow[id(head.weight)], self._shadow[id(head.bias)] = self.head_w[rows], self.head_b[rows]
        self._keep_gradients(
            agent, self.linears, self.g_w, self.g_b, self.g_head_w, self.g_head_b, self._shadow
        )
        self._x: torch.Tensor | None = None  # the minibatch's observation rows
        self._grad_out: torch.Tensor | None = None  # the head output's gradient (N, A + 1)
        self._zeros = np.zeros(a + 1, np.float32)
        self._no_pieces, self._no_gains = torch.empty((0, 0, 0)), torch.empty(0)
        self.refresh()

    def refresh(self) -> None:
        """Copy the agent's parameters into their bfloat16 shadows, and list the
        optimizer's arrays again at the next :meth:`step`."""
        with torch.no_grad():
            for p in self.agent.parameters():
                s = self._shadow.get(id(p))
                if s is not None:
                    s.copy_(p)
        super().refresh()

    def gradients(
        self, batch, idx: torch.Tensor, clip: float, vf_coef: float, ent_coef: float
    ) -> tuple[dict[int, torch.Tensor], np.ndarray]:
        """The PPO loss's gradients on minibatch ``idx`` ((N,) int64 samples of ``batch``,
        the trainer's ``_Batch``), from the shadows.

        Args:
            batch: the rollout's samples (``obs`` (M', D) bfloat16 or float32, read in
                place through ``sample_rows``; ``lidx``, ``lbias``, ``lpos``,
                ``old_logp``, ``advs``, ``rets``; ``piece_values`` where the agent has
                action pieces).
            idx: the minibatch's samples.
            clip, vf_coef, ent_coef: the loss's settings
                (:func:`~tabletop_core.train.loss.ppo_loss_grad`).

        Returns:
            ``(grads, stats)``: ``grads`` maps ``id(parameter)`` to its gradient in the
            parameter's shape (weights bfloat16, biases and gains float32; tensors kept
            by this object and overwritten by the next call); ``stats`` (5,) float64,
            the loss's statistics (pg loss, value loss, entropy, approx KL, clip
            fraction).
        """
        agent = self.agent
        rows = batch.rows(idx)
        acts = self._forward(rows)
        out = acts.pop()
        n, k = len(idx), batch.lidx.shape[1]
        lidx, logits, value = torch.empty((n, k), dtype=torch.int64), torch.empty((n, k)), torch.empty(n)
        pieces, pidx, gains = self._no_pieces, idx, self._no_gains
        if agent.action_gain is not None:
            pieces = batch.piece_values
            if pieces is None:  # not read once for the rollout: this minibatch's alone
                pieces = piece_values_of(rows, batch.lidx.index_select(0, idx), agent.action_inputs)
                pidx = torch.arange(n)
            with torch.no_grad():
                gains = agent.action_gain * ACTION_GAIN_SCALE
        legal_head(
            out.view(torch.int16).numpy(),
            batch.lidx.numpy(),
            idx.numpy(),
            pieces.numpy(),
            pidx.numpy(),
            gains.detach().numpy(),
            lidx.numpy(),
            logits.numpy(),
            value.numpy(),
        )
        g_logits, g_value, stats = minibatch_loss_grad(batch, idx, logits, value, clip, vf_coef, ent_coef)
        self._backward(acts, out, lidx, g_logits, g_value)
        if agent.action_gain is not None:  # d loss / d gain_j = SCALE * sum(g_logits * pieces[:, j])
            gain_grad = self._grad[id(agent.action_gain)]
            gain_grads(g_logits.numpy(), pieces.numpy(), pidx.numpy(), ACTION_GAIN_SCALE, gain_grad.numpy())
        return self._grad, stats

    def _forward(self, rows: ObservationRows) -> list[torch.Tensor]:
        """The activations of observation rows ``rows``: the rows themselves, each hidden
        layer's output, the head's output (N, A + 1), all bfloat16."""
        obs, n = rows.obs, len(rows.rows)
        if self._x is None or self._x.shape[0] != n or self._x.dtype != obs.dtype:
            self._x = torch.empty((n, obs.shape[1]), dtype=obs.dtype)
        torch.index_select(obs, 0, rows.rows, out=self._x)
        acts = [self._x if obs.dtype == _BF16 else self._x.to(_BF16)]
        act = self.agent.activation
        for w, b in zip(self.w, self.b):
            acts.append(torch.ops.mkldnn._linear_pointwise(acts[-1], w, b, act, [], ""))
        acts.append(torch.ops.mkldnn._linear_pointwise(acts[-1], self.head_w, self.head_b, "none", [], ""))
        return acts

    def _backward(self, acts, out, lidx, g_logits, g_value) -> None:
        """The layers' gradients, into the kept tensors, from the legal logits' and the
        values' (``acts`` from :meth:`_forward`, without the head's ``out``)."""
        if self._grad_out is None or self._grad_out.shape != out.shape:
            self._grad_out = torch.empty_like(out)
        g = self._grad_out
        scatter_head_grad(
            g_logits.numpy(),
            lidx.numpy(),
            g_value.numpy(),
            g.view(torch.int16).numpy(),
            self.g_head_b.numpy(),
            self._zeros,
        )
        model._weight_grad(g, acts[-1], out=self.g_head_w)
        g_z = g @ self.head_w if self.linears else None
        for k in reversed(range(len(self.linears))):
            y = acts[k + 1]
            g = model.activation_grad(self.agent.activation, g_z, y)
            if k > 0:
                g_z = g @ self.w[k]
            model._weight_grad(g, acts[k], out=self.g_w[k])
            column_sums(g.view(torch.int16).numpy(), self.g_b[k].numpy())
