"""The float32 CPU path's PPO step, forward and backward written out (no autograd).

Optimization of :func:`ppo.ppo_step <tabletop_core.train.ppo.ppo_step>`: same update
(``tests/test_ppo_reference.py``), faster because only the legal logits are computed, the
first layer reads the observations' nonzero entries, and no autograd graph, gradient
allocation or optimizer listing is paid per minibatch.

On a CPU without a bfloat16 unit (and for Exit Now's mostly-zero rows on one with
AVX512-BF16 alone, ``docs/training.md``, "The dtype ``--bf16 auto`` picks") the network
runs in float32: the first layer reads the observations' nonzero entries
(:func:`~tabletop_core.train.model.sparse_forward`) and the head computes only the legal
logits and the value (:func:`~tabletop_core.train.model.legal_dots_forward`). Around
those compiled passes and the hidden layers' products, autograd recorded a graph, wrapped
each tensor, zeroed and allocated every gradient, concatenated the heads' gradients
apart, and the Adam step listed its arrays again, a minibatch at a time.
:class:`PlainStep` runs the same passes in the same order without that:

* forward: the first layer (sparse, or ``addmm`` as ``nn.Linear`` runs it), each hidden
  layer's ``addmm`` and activation (:func:`~tabletop_core.train.model.tanh_f32`, or
  ``relu``), the legal logits and the value, and the action pieces' term;
* the loss and its gradient with respect to the legal logits and the value
  (:func:`~tabletop_core.train.loss.minibatch_loss_grad`);
* backward: the head's gradients, each layer's activation gradient, weight gradient
  (``g.T @ x``, autograd's layout for ``nn.Linear``), bias gradient and input gradient,
  the first layer's over the nonzero entries
  (:func:`~tabletop_core.train.model.sparse_backward`), and the action pieces' gains'
  (:func:`~tabletop_core.train.head.gain_grads`);
* the gradients stay in tensors kept from step to step, the actor's and the critic's rows
  in one ``(A + 1, H)`` block, and the clipping and Adam step read them in place
  (:class:`~tabletop_core.train.adam.KeptGradientsStep`, listed once an update).

The products and the compiled passes are the autograd path's, so the parameters'
gradients are autograd's to the bit except the gains', summed in another order
(``tests/test_train.py``).
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from tabletop_core.train import model
from tabletop_core.train.adam import KeptGradientsStep
from tabletop_core.train.head import gain_grads
from tabletop_core.train.loss import minibatch_loss_grad
from tabletop_core.train.model import (
    ACTION_GAIN_SCALE,
    Agent,
    ObservationRows,
    SparseSaved,
    legal_dots_backward,
    legal_dots_forward,
    piece_sum,
    piece_values_of,
    sparse_backward,
    sparse_forward,
)

__all__ = ["PlainStep"]


class PlainStep(KeptGradientsStep):
    """The PPO step of a float32 :class:`~tabletop_core.train.model.Agent` on the CPU:
    optimization of :func:`ppo.ppo_step <tabletop_core.train.ppo.ppo_step>` (module
    docstring): :meth:`gradients` for a minibatch, :meth:`step` for the optimizer
    step too. Call :meth:`refresh` after anything other than :meth:`step` changed the
    optimizer's state (a checkpoint, the critic warm-up's steps).

    Args:
        agent: a float32 agent on the CPU, not fused.

    Raises:
        ValueError: if ``agent`` is fused, not float32 or not on the CPU.
    """

    def __init__(self, agent: Agent):
        w = agent.actor.weight
        if agent.fused or w.device.type != "cpu" or w.dtype != torch.float32:
            raise ValueError(
                "PlainStep runs a float32 agent on the CPU that is not fused (Agent.fuse(False))"
            )
        self.agent = agent
        self.linears = [m for m in agent.trunk if isinstance(m, nn.Linear)]
        a, h = w.shape
        self.g_head_w, self.g_head_b = torch.empty((a + 1, h)), torch.empty(a + 1)
        self.g_w = [torch.empty_like(lin.weight) for lin in self.linears]  # the weight's layout
        self.g_b = [torch.empty_like(lin.bias) for lin in self.linears]
        self._keep_gradients(agent, self.linears, self.g_w, self.g_b, self.g_head_w, self.g_head_b)

    def gradients(
        self, batch, idx: torch.Tensor, clip: float, vf_coef: float, ent_coef: float
    ) -> tuple[dict[int, torch.Tensor], np.ndarray]:
        """The PPO loss's gradients on minibatch ``idx`` ((N,) int64 samples of ``batch``,
        the trainer's ``_Batch``: ``obs`` float32, read in place through ``sample_rows``
        and, where the first layer is sparse, ``listed``; ``lidx``, ``lbias``, ``lpos``,
        ``old_logp``, ``advs``, ``rets``; ``piece_values`` where the agent has action
        pieces). ``clip``, ``vf_coef``, ``ent_coef``: the loss's settings
        (:func:`~tabletop_core.train.loss.ppo_loss_grad`).

        Returns:
            ``(grads, stats)``: ``grads`` maps ``id(parameter)`` to its float32 gradient
            in the parameter's shape and layout (tensors kept by this object and
            overwritten by the next call); ``stats`` (5,) float64, the loss's statistics
            (pg loss, value loss, entropy, approx KL, clip fraction).
        """
        agent = self.agent
        self._match_layouts()
        rows = batch.rows(idx)
        index = batch.lidx.index_select(0, idx)
        threads = torch.get_num_threads()
        with torch.no_grad():
            acts, saved = self._forward(rows)
            head_w, head_b = agent._head()
            z = acts[-1]
            logits, value = legal_dots_forward(z, head_w, head_b, index, threads)
            pieces = None
            if agent.action_gain is not None:  # the pieces' entries at this minibatch's legal actions
                pieces = piece_values_of(rows, index, agent.action_inputs)
                logits = logits + piece_sum(pieces, agent.action_gain * ACTION_GAIN_SCALE)
        g_logits, g_value, stats = minibatch_loss_grad(batch, idx, logits, value, clip, vf_coef, ent_coef)
        with torch.no_grad():
            g_z = torch.empty_like(z) if self.linears else None
            legal_dots_backward(
                z, head_w, index, g_logits, g_value, threads, self.g_head_w, self.g_head_b, g_z
            )
            self._backward(acts, saved, g_z)
        if pieces is not None:  # d loss / d gain_j = SCALE * sum(g_logits * pieces[:, j])
            gain_grad = self._grad[id(agent.action_gain)]
            rows_of = torch.arange(len(idx))
            gain_grads(
                g_logits.numpy(), pieces.numpy(), rows_of.numpy(), ACTION_GAIN_SCALE, gain_grad.numpy()
            )
        return self._grad, stats

    def _match_layouts(self) -> None:
        """Give each weight gradient its weight's memory layout again (the trainer stores
        the first layer's weight transposed once it makes that layer sparse,
        :attr:`~tabletop_core.train.model.Agent.sparse_input`), listing Adam's arrays again
        if one changed."""
        for k, lin in enumerate(self.linears):
            if self.g_w[k].stride() != lin.weight.stride():
                self.g_w[k] = self._grad[id(lin.weight)] = torch.empty_like(lin.weight)
                self.refresh()

    def _activation(self, z: torch.Tensor) -> torch.Tensor:
        """The hidden layers' activation, as the agent's modules compute it."""
        return model.tanh_f32(z) if self.agent.activation == "tanh" else torch.relu(z)

    def _forward(self, rows: ObservationRows) -> tuple[list[torch.Tensor], SparseSaved | None]:
        """The first layer's input (None where it is sparse) and each hidden layer's output
        (N, H), and what the sparse first layer keeps for its backward pass."""
        agent = self.agent
        first = self.linears[0] if self.linears else None
        saved = None
        if first is not None and agent.sparse_input:
            x = None
            z, saved = sparse_forward(
                rows if rows.listed is not None else rows.dense(),
                first.weight,
                first.bias,
                agent.input_nonzeros,
            )
        else:
            x = rows.dense()
            z = torch.addmm(first.bias, x, first.weight.t()) if first is not None else x
        acts = [x]
        if first is not None:
            acts.append(self._activation(z))
        for lin in self.linears[1:]:
            acts.append(self._activation(torch.addmm(lin.bias, acts[-1], lin.weight.t())))
        return acts, saved

    def _backward(
        self, acts: list[torch.Tensor], saved: SparseSaved | None, g_y: torch.Tensor | None
    ) -> None:
        """The layers' gradients, into the kept tensors, from the last layer's output
        gradient ``g_y`` (``acts`` and ``saved`` from :meth:`_forward`)."""
        for k in reversed(range(len(self.linears))):
            y = acts[k + 1]
            g = model.activation_grad(self.agent.activation, g_y, y)
            if k == 0 and saved is not None:
                sparse_backward(saved, g, self.g_w[0], self.g_b[0])
                continue
            torch.mm(g.t(), acts[k], out=self.g_w[k])
            torch.sum(g, 0, out=self.g_b[k])
            if k > 0:
                g_y = g @ self.linears[k].weight
