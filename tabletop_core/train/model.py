"""The policy network and the hot-loop pieces that touch it.

One MLP trunk (``tanh`` or ``relu``, as :class:`tabletop_core.agents.policy.MLPPolicy` plays it) with two
heads: action logits and a value. Sharing the trunk halves the FLOPs per sample against
CleanRL's two separate networks; the update is what bounds the trainer's speed.

:func:`masked_gumbel_sample` draws from the masked softmax with the Gumbel-max trick
(``argmax(logits + Gumbel noise)``) instead of ``torch.distributions.Categorical``, whose
multinomial sample takes most of an inference step at large batches.

On a CPU with bfloat16 (the trainer's default where AVX512-BF16 or AMX exist) the network
runs a fused path (:meth:`Agent.fuse`): each hidden layer is one oneDNN matmul with the
activation applied in its epilogue (``torch.ops.mkldnn._linear_pointwise``), and the update
asks only for the logits of each sample's legal actions (:meth:`Agent.legal_forward`), so
the backward pass builds the logits' gradient once instead of going through a bfloat16
gather, a scatter and three dtype copies; both make an update minibatch faster than
under autocast. The weights stay float32 (Adam's master copy) and are cast per call,
as autocast does; the trainer's update keeps bfloat16 copies that its Adam step writes
(:class:`~tabletop_core.train.fused.FusedStep`).

On a CPU without bfloat16 the network runs in float32, and the update's head computes
only what the loss reads: each legal logit and the value as one dot product
(:class:`_LegalDots`, :mod:`tabletop_core.train.head`), about a thirteenth of the dense
head's work in The Game. Where the observations are mostly zeros the first layer reads only
their nonzero entries (:class:`_SparseLinear`, :mod:`tabletop_core.train.sparse`; the
trainer turns it on, :attr:`Agent.sparse_input`).

A game may declare action pieces (:attr:`~tabletop_core.contract.game.GameDef.action_pieces`):
observation pieces whose entry ``a`` describes action ``a``, such as The Game's
``play_fit``. The network adds ``ACTION_GAIN_SCALE * gain[j] * obs[offset_j + a]`` to the
logit of each such action ``a`` (:meth:`Agent.action_term`), one learned ``gain`` per
piece, shared by every action: what the piece says about one play carries over to every
other from the first update, where the trunk had to learn it action by action
(``docs/training.md``, "Action pieces").
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import numpy as np
import torch
from torch import nn

from tabletop_core.agents.policy import ACTIVATIONS
from tabletop_core.contract.encoders import check_action_inputs
from tabletop_core.kernel.jit import column_blocks, shards
from tabletop_core.kernel.mathf import tanh_into
from tabletop_core.train.head import legal_grad_input, legal_grad_weight, legal_logits
from tabletop_core.train.sample import scatter_head_grad
from tabletop_core.train.sparse import SparseRows, sparse_linear, sparse_weight_grad

__all__ = [
    "Agent",
    "ObservationRows",
    "fused_available",
    "masked_gumbel_sample",
    "masked_logits",
    "model_flops_per_sample",
    "piece_values_at",
]

NEG = -1e9
"""Logit given to illegal actions: exp(NEG - max) is 0 in float32 and bfloat16, and unlike
-inf it keeps ``0 * logit`` finite in the entropy."""


_BF16 = torch.bfloat16

ACTION_GAIN_SCALE = 16.0
"""The factor the action pieces' gains are read at (:meth:`Agent.action_term`). Adam moves
a parameter by about the learning rate a step whatever its gradient; read at this
factor, a gain reaches a spread of a few logits over a piece's range within a few
rollouts, as the trunk's outputs do."""


@functools.cache
def fused_available() -> bool:
    """Whether this torch and CPU run oneDNN's fused bfloat16 ``linear + tanh`` (tried once
    on a tiny input: oneDNN refuses bfloat16 on CPUs without AVX-512)."""
    if not (torch.backends.mkldnn.is_available() and hasattr(torch.ops.mkldnn, "_linear_pointwise")):
        return False
    try:
        x = torch.ones(2, 4, dtype=_BF16)
        torch.ops.mkldnn._linear_pointwise(x, torch.ones(3, 4, dtype=_BF16), None, "tanh", [], "")
    except RuntimeError:
        return False
    return True


def _linear(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    """``x @ weight.T + bias`` in bfloat16, the bias added in oneDNN's epilogue: ``addmm``
    first copies the bias into every output row, a (4096, 394) copy that cost as much as a
    third of the matmul here."""
    return torch.ops.mkldnn._linear_pointwise(x, weight, bias, "none", [], "")


def _weight_grad(g: torch.Tensor, x: torch.Tensor, out: torch.Tensor | None = None) -> torch.Tensor:
    """A fused layer's weight gradient ``g.T @ x`` ((out, in), bfloat16; into ``out`` where
    given): the layout measured fastest on AMX among those tried
    (``benchmarks/amx/train_variant.py`` swaps this function to compare others)."""
    return torch.mm(g.t(), x, out=out)


def activation_grad(activation: str, grad_y: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """The gradient of a hidden layer's activation input from its output ``y`` and the
    output's gradient ``grad_y`` (same shape and dtype): ``tanh`` from the output as
    torch's ``tanh_backward``, ``relu`` passing it where the output is positive."""
    if activation == "tanh":
        return torch.ops.aten.tanh_backward(grad_y, y)
    return torch.ops.aten.threshold_backward(grad_y, y, 0)


class _LinearAct(torch.autograd.Function):
    """``f(x @ W.T + b)`` in bfloat16, ``f`` tanh or relu (oneDNN's post-op name), one
    oneDNN call forward; float32 weight grads."""

    @staticmethod
    def forward(ctx, x, weight, bias, act):
        xb, wb = x.to(_BF16), weight.to(_BF16)
        y = torch.ops.mkldnn._linear_pointwise(xb, wb, bias.to(_BF16), act, [], "")
        ctx.save_for_backward(xb, wb, y)
        ctx.act = act
        return y

    @staticmethod
    def backward(ctx, grad_y):
        xb, wb, y = ctx.saved_tensors
        g = activation_grad(ctx.act, grad_y.to(_BF16), y)
        grad_x = g @ wb if ctx.needs_input_grad[0] else None
        return grad_x, _weight_grad(g, xb).float(), g.sum(0).float(), None


def tanh_f32(x: torch.Tensor) -> torch.Tensor:
    """``tanh`` of a contiguous float32 CPU tensor into a new one, by
    :func:`~tabletop_core.kernel.mathf.tanh_into` (within 3e-7 of the exact value): the plain
    path's hidden activation, forward (:class:`_TanhF32`, the update's
    :class:`~tabletop_core.train.plain.PlainStep`)."""
    y = torch.empty_like(x)
    tanh_into(x.detach().view(-1).numpy(), y.view(-1).numpy())
    return y


class _TanhF32(torch.autograd.Function):
    """``tanh`` of a contiguous float32 CPU tensor by :func:`~tabletop_core.kernel.mathf.tanh_into`
    (within 3e-7; torch's own float32 ``tanh`` is a slow path on CPUs without AVX-512),
    its gradient by ``tanh_backward`` from the output, as torch's."""

    @staticmethod
    def forward(ctx, x):
        y = tanh_f32(x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad_y):
        (y,) = ctx.saved_tensors
        return activation_grad("tanh", grad_y, y)


class Tanh(nn.Tanh):
    """``nn.Tanh`` whose float32 CPU forward is :class:`_TanhF32` (the plain path's hidden
    activation); other dtypes and devices (bfloat16 under autocast, CUDA) run ``torch.tanh``."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.dtype == torch.float32 and x.device.type == "cpu" and x.is_contiguous():
            return _TanhF32.apply(x)
        return torch.tanh(x)


class _LegalHead(torch.autograd.Function):
    """The fused bfloat16 actor and critic heads as one ``(A + 1)``-row oneDNN matmul,
    returning only the logits at ``index`` (N, K) and the value, both float32.
    ``scratch``: an (N, A + 1) bfloat16 buffer kept for the head's output gradient and
    (A + 1,) float32 zeros, both for :func:`~tabletop_core.train.sample.scatter_head_grad`,
    which builds that gradient and its column sums in one pass (torch takes a fresh (N, A)
    fill, a scatter-add, a copy to bfloat16 and a sum; and a second matmul for the critic).
    CPU only."""

    @staticmethod
    def forward(ctx, z, weight, bias, index, scratch):
        z, weight = z.to(_BF16), weight.to(_BF16)
        out = _linear(z, weight, bias.to(_BF16))
        ctx.save_for_backward(z, weight, index)
        ctx.scratch = scratch
        return out[:, :-1].gather(1, index).float(), out[:, -1].float().contiguous()

    @staticmethod
    def backward(ctx, grad_logits, grad_value):
        z, weight, index = ctx.saved_tensors
        grad_out, zeros = ctx.scratch
        grad_bias = torch.empty(grad_out.shape[1])
        scatter_head_grad(  # the gradient of the head's output and its column sums
            grad_logits.contiguous().numpy(),
            index.numpy(),
            grad_value.contiguous().numpy(),
            grad_out.view(torch.int16).numpy(),
            grad_bias.numpy(),
            zeros,
        )
        grad_z = grad_out @ weight if ctx.needs_input_grad[0] else None
        return grad_z, _weight_grad(grad_out, z).float(), grad_bias, None, None


class ObservationRows(NamedTuple):
    """Rows ``rows`` of a batch of observations, for a network call that reads them in
    place: the update's minibatches, drawn from a rollout whose nonzero entries were listed
    once (:class:`~tabletop_core.train.sparse.SparseRows`). The sparse first layer reads
    the listed rows, with no copy of the dense ones; every other path takes
    :meth:`dense`."""

    obs: torch.Tensor
    """(M, D) the batch."""
    rows: torch.Tensor
    """(N,) int64, the rows read, in order."""
    listed: SparseRows | None = None
    """``obs``'s nonzero entries (float32 CPU observations), or None."""
    piece_values: torch.Tensor | None = None
    """(S, J, K) float32: the action pieces' entries at the legal actions of the batch's
    ``S`` samples (:func:`piece_values_at`), for a call whose index is those samples'
    legal index at ``samples``; or None."""
    samples: torch.Tensor | None = None
    """(N,) int64, the samples read from ``piece_values`` (``rows`` when None)."""

    def dense(self) -> torch.Tensor:
        """``obs[rows]`` (N, D), a copy."""
        return self.obs.index_select(0, self.rows)  # faster than obs[rows]

    def check(self) -> None:
        """Raise ValueError unless ``rows`` are int64 rows of ``obs`` and ``listed``
        lists ``obs``: the compiled layer reads them unchecked."""
        m = self.obs.shape[0]
        if self.obs.dim() != 2 or self.rows.dim() != 1 or self.rows.dtype != torch.int64:
            raise ValueError(
                f"rows must be (N,) int64 rows of an (M, D) batch, not {tuple(self.rows.shape)} {self.rows.dtype} of {tuple(self.obs.shape)}"
            )
        if len(self.rows) and (int(self.rows.min()) < 0 or int(self.rows.max()) >= m):
            raise ValueError(
                f"rows must lie in 0..{m - 1}, got {int(self.rows.min())}..{int(self.rows.max())}"
            )
        if self.listed is not None and tuple(self.listed.shape) != tuple(self.obs.shape):
            raise ValueError(
                f"the listing is of a {self.listed.shape} batch, the observations {tuple(self.obs.shape)}"
            )


class SparseSaved(NamedTuple):
    """What :func:`sparse_forward` keeps for :func:`sparse_backward`."""

    rows: np.ndarray
    """(N,) int64, the listed rows read, in order."""
    lists: tuple[np.ndarray, ...]
    """The listing's ``start``, ``count``, ``cols`` and ``vals``."""
    dim: int
    """The observation length ``D``."""
    threads: int
    common: tuple[torch.Tensor, torch.Tensor] | None
    """The common row's columns and values, or None."""


def sparse_forward(
    x: torch.Tensor | ObservationRows, weight: torch.Tensor, bias: torch.Tensor, nonzeros: np.ndarray
) -> tuple[torch.Tensor, SparseSaved]:
    """``x @ W.T + b`` (float32 CPU) over each row's nonzero entries of ``x`` alone
    (:mod:`tabletop_core.train.sparse`), on ``torch.get_num_threads()`` threads: the forward
    pass of :class:`_SparseLinear` (which says what ``x`` may be and how the common row is
    folded in). Returns ``(out (N, H) float32, what the backward pass reads)`` and writes
    the number of entries read to ``nonzeros[0]`` ((1,) int64)."""
    threads = torch.get_num_threads()
    if isinstance(x, ObservationRows):
        listed, rows = x.listed, x.rows.numpy()
    else:
        listed = SparseRows(x.detach().contiguous().numpy(), threads)
        rows = np.arange(x.shape[0], dtype=np.int64)
    wt = weight.detach().t()  # (D, H): free where the weight is stored transposed
    if not wt.is_contiguous():
        wt = wt.contiguous()
    out = torch.empty((rows.shape[0], wt.shape[1]))
    lists = (listed.start, listed.count, listed.cols, listed.vals)
    common = None
    b = bias.detach()
    if len(listed.common_cols):  # the common row's part, the same for every row: into the bias
        common = (torch.from_numpy(listed.common_cols), torch.from_numpy(listed.common_vals))
        b = b + common[1] @ wt.index_select(0, common[0])
    sparse_linear(
        shards(rows.shape[0], threads), rows, *lists, wt.numpy(), b.contiguous().numpy(), out.numpy()
    )
    nonzeros[0] = listed.nonzeros(rows) + len(listed.common_cols)
    return out, SparseSaved(rows, lists, listed.shape[1], threads, common)


def sparse_backward(
    saved: SparseSaved, grad_out: torch.Tensor, grad_w: torch.Tensor, grad_b: torch.Tensor
) -> None:
    """The weight and bias gradients of :func:`sparse_forward` from its output's gradient
    ``grad_out`` (N, H), into ``grad_w`` (in the weight's shape and layout) and ``grad_b``
    (H,)."""
    g = grad_out.contiguous()
    bounds, blocks = column_blocks(g.shape[1], saved.dim, saved.threads)
    sparse_weight_grad(bounds, saved.rows, *saved.lists, g.numpy(), blocks, grad_w.numpy())
    torch.sum(g, 0, out=grad_b)
    if saved.common is not None:  # the common row's part: its value times g's column sums
        cols, vals = saved.common
        grad_w.t().index_add_(0, cols, vals[:, None] * grad_b[None, :])


class _SparseLinear(torch.autograd.Function):
    """``x @ W.T + b`` (float32 CPU) over each row's nonzero entries of ``x`` alone, forward
    and for the weight gradient (:mod:`tabletop_core.train.sparse`), on
    ``torch.get_num_threads()`` threads. ``x`` is a dense (N, D) tensor, listed here, or
    :class:`ObservationRows` with their listing. A dense ``x`` gets a gradient only where
    autograd asks for one (a dense ``g @ W``); the trainer's observations never do. Where
    the listing holds differences from a common row ``b`` (``SparseRows(...,
    common_row=True)``: the trainer's rollouts, listed once an update; a dense ``x`` is
    listed without, as choosing ``b`` would cost a single call about what it saves),
    ``b @ W.T`` is added into the bias once a call, and ``b``'s part of the weight
    gradient (column ``j``: ``b[j]`` times the output gradient's column sums) once.
    Returns ``(N, H)`` float32 and writes the number of entries read to ``nonzeros[0]``
    ((1,) int64 array: the FLOPs the trainer counts; ``b``'s columns count once)."""

    @staticmethod
    def forward(ctx, x, weight, bias, nonzeros):
        out, ctx.saved = sparse_forward(x, weight, bias, nonzeros)
        ctx.save_for_backward(weight)
        return out

    @staticmethod
    def backward(ctx, grad_out):
        (weight,) = ctx.saved_tensors
        grad_w, grad_b = torch.empty_like(weight), torch.empty(weight.shape[0])
        sparse_backward(ctx.saved, grad_out, grad_w, grad_b)
        grad_x = grad_out.contiguous() @ weight if ctx.needs_input_grad[0] else None
        return grad_x, grad_w, grad_b, None


def legal_dots_forward(
    z: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, index: torch.Tensor, threads: int
) -> tuple[torch.Tensor, torch.Tensor]:
    """The float32 CPU head's forward pass (:class:`_LegalDots`): ``(logits at index (N,
    K), value (N,))`` from features ``z`` (N, H) and the stacked head ``weight`` (A + 1,
    H), ``bias`` (A + 1,), all contiguous float32, on ``threads`` threads."""
    logits, value = torch.empty(index.shape), torch.empty(z.shape[0])
    legal_logits(
        shards(z.shape[0], threads),
        z.numpy(),
        weight.numpy(),
        bias.numpy(),
        index.numpy(),
        logits.numpy(),
        value.numpy(),
    )
    return logits, value


def legal_dots_backward(
    z: torch.Tensor,
    weight: torch.Tensor,
    index: torch.Tensor,
    grad_logits: torch.Tensor,
    grad_value: torch.Tensor,
    threads: int,
    grad_w: torch.Tensor,
    grad_b: torch.Tensor,
    grad_z: torch.Tensor | None,
) -> None:
    """:func:`legal_dots_forward`'s backward pass: the head's gradients into ``grad_w``
    (A + 1, H) and ``grad_b`` (A + 1,), and the features' into ``grad_z`` (N, H) unless it
    is None; all contiguous float32."""
    gl, gv = grad_logits.contiguous().numpy(), grad_value.contiguous().numpy()
    if grad_z is not None:
        legal_grad_input(shards(z.shape[0], threads), gl, gv, index.numpy(), weight.numpy(), grad_z.numpy())
    bounds, blocks = column_blocks(z.shape[1], weight.shape[0], threads)
    legal_grad_weight(bounds, gl, gv, index.numpy(), z.numpy(), blocks, grad_w.numpy(), grad_b.numpy())


class _LegalDots(torch.autograd.Function):
    """The float32 CPU head at the legal actions only: each kept logit, and the value, one
    dot product (:mod:`tabletop_core.train.head`), forward and backward, on
    ``torch.get_num_threads()`` threads; a dense head's matmuls computed all ``A + 1``
    outputs a sample to keep ``K + 1`` of them. Returns ``(logits at index (N, K), value
    (N,))``, float32."""

    @staticmethod
    def forward(ctx, z, weight, bias, index):
        z, weight = z.detach().contiguous(), weight.detach().contiguous()
        threads = torch.get_num_threads()
        logits, value = legal_dots_forward(z, weight, bias.detach(), index, threads)
        ctx.save_for_backward(z, weight, index)
        ctx.threads = threads
        return logits, value

    @staticmethod
    def backward(ctx, grad_logits, grad_value):
        z, weight, index = ctx.saved_tensors
        grad_z = torch.empty_like(z) if ctx.needs_input_grad[0] else None
        grad_w, grad_b = torch.empty_like(weight), torch.empty(weight.shape[0])
        legal_dots_backward(z, weight, index, grad_logits, grad_value, ctx.threads, grad_w, grad_b, grad_z)
        return grad_z, grad_w, grad_b, None


class Agent(nn.Module):
    """Actor-critic MLP: ``obs (N, D) float32 -> (logits (N, A), value (N,))``.

    Args:
        obs_dim: observation length ``D``.
        num_actions: action count ``A``.
        hidden: hidden widths, e.g. ``(256, 256)``.
        activation: the hidden layers' nonlinearity, ``"tanh"`` or ``"relu"``
            (:data:`~tabletop_core.agents.policy.ACTIVATIONS`).
        action_inputs: ``((offset, size), ...)``, the action pieces' places in the
            observation (:meth:`~tabletop_core.contract.game.GameDef.action_inputs`); each
            gets a gain (:attr:`action_gain`, starting at 0) and adds to the logits of
            actions ``0..size - 1`` (:meth:`action_term`).

    Raises:
        ValueError: an activation not in that list, an action piece outside the
            observation or longer than the action space; at a forward pass, observations
            whose last dimension is not ``obs_dim``, or :class:`ObservationRows` whose
            rows are not int64 rows of their batch or whose listing is of another batch.

    Initialisation as CleanRL's PPO: orthogonal, gain sqrt(2) for the trunk, 0.01 for the
    policy head (near-uniform first policy), 1 for the value head; zero biases.
    """

    def __init__(
        self,
        obs_dim: int,
        num_actions: int,
        hidden: tuple[int, ...] = (256, 256),
        activation: str = "tanh",
        action_inputs: tuple[tuple[int, int], ...] = (),
    ):
        super().__init__()
        if activation not in ACTIVATIONS:
            raise ValueError(f"activation must be one of {', '.join(ACTIVATIONS)}, got {activation!r}")
        self.action_inputs = check_action_inputs(action_inputs, obs_dim, num_actions)
        self.obs_dim, self.num_actions, self.hidden = int(obs_dim), int(num_actions), tuple(hidden)
        self.activation = activation
        layers: list[nn.Module] = []
        width = self.obs_dim
        for h in self.hidden:
            lin = nn.Linear(width, h)
            nn.init.orthogonal_(lin.weight, np.sqrt(2))
            nn.init.zeros_(lin.bias)
            layers += [lin, Tanh() if activation == "tanh" else nn.ReLU()]
            width = h
        self.trunk = nn.Sequential(*layers)
        self.actor = nn.Linear(width, self.num_actions)
        self.critic = nn.Linear(width, 1)
        for head, gain in ((self.actor, 0.01), (self.critic, 1.0)):
            nn.init.orthogonal_(head.weight, gain)
            nn.init.zeros_(head.bias)
        self.action_gain = nn.Parameter(torch.zeros(len(self.action_inputs))) if self.action_inputs else None
        """``(pieces,)`` float32: each action piece's gain, read at :data:`ACTION_GAIN_SCALE`
        (None without action pieces)."""

        self.fused = False
        self._sparse_input = False
        self.input_nonzeros = np.zeros(1, np.int64)
        """The nonzero observation entries the last sparse first layer read, ``(1,)`` int64."""
        self._scratch: tuple[torch.Tensor, np.ndarray] | None = None

    @property
    def sparse_input(self) -> bool:
        """Whether the float32 CPU path's first layer reads only the observation's nonzero
        entries (:class:`_SparseLinear`); the trainer sets it where they are few
        (:data:`~tabletop_core.train.sparse.SPARSE_DENSITY`). Turning it on stores the first
        layer's weight transposed in memory (its ``(D, H)`` rows, what the sparse layer
        reads; the tensor keeps its ``(H, D)`` shape and values), so no forward pass copies
        it out transposed."""
        return self._sparse_input

    @sparse_input.setter
    def sparse_input(self, on: bool) -> None:
        self._sparse_input = bool(on)
        weight = self.trunk[0].weight
        if self._sparse_input and not weight.t().is_contiguous():
            with torch.no_grad():
                weight.data = weight.data.t().contiguous().t()

    def fuse(self, on: bool = True) -> Agent:
        """Run the fused bfloat16 CPU path (see the module docstring) when ``on`` and this
        torch has it (:func:`fused_available`); the plain modules (for autocast) otherwise.
        Returns ``self``."""
        self.fused = bool(on) and fused_available()
        return self

    def _features(self, obs: torch.Tensor | ObservationRows) -> torch.Tensor:
        batch = obs.obs if isinstance(obs, ObservationRows) else obs
        if batch.shape[-1] != self.obs_dim:  # the sparse layer would read past its weights
            raise ValueError(
                f"observations of {batch.shape[-1]} floats (shape {tuple(batch.shape)}); this network "
                f"takes {self.obs_dim}"
            )
        if isinstance(obs, ObservationRows):
            obs.check()
            if obs.listed is not None and self.sparse_input and not self.fused:
                first = self.trunk[0]
                return self.trunk[1:](_SparseLinear.apply(obs, first.weight, first.bias, self.input_nonzeros))
            obs = obs.dense()
        if not self.fused:
            sparse = self.sparse_input and obs.dim() == 2 and obs.dtype == torch.float32
            if sparse and obs.device.type == "cpu":
                first = self.trunk[0]
                z = _SparseLinear.apply(obs, first.weight, first.bias, self.input_nonzeros)
                return self.trunk[1:](z)
            return self.trunk(obs)
        z = obs
        for lin in self.trunk:
            if isinstance(lin, nn.Linear):
                z = _LinearAct.apply(z, lin.weight, lin.bias, self.activation)
        return z

    def _head(self) -> tuple[torch.Tensor, torch.Tensor]:
        """The actor and critic rows stacked: weight (A + 1, H), bias (A + 1,)."""
        return (
            torch.cat([self.actor.weight, self.critic.weight]),
            torch.cat([self.actor.bias, self.critic.bias]),
        )

    def features_and_head(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """``(features (N, H), head weight (A + 1, H), head bias (A + 1,))``, detached: what
        the float32 CPU sampler takes to compute only the legal logits and the value
        (:func:`~tabletop_core.train.sample.sample_legal_dots`)."""
        with torch.no_grad():
            w, b = self._head()
            return self._features(obs).contiguous(), w, b

    def action_term(self, obs: torch.Tensor) -> torch.Tensor | None:
        """``(N, E)`` float32: what the action pieces add to the logits of actions
        ``0..E - 1`` (``E`` the longest piece), ``sum_j ACTION_GAIN_SCALE * gain[j] *
        obs[:, offset_j + a]``; None without action pieces."""
        if self.action_gain is None:
            return None
        return piece_term(obs, self.action_gain * ACTION_GAIN_SCALE, self.action_inputs)

    def _with_action_term(self, logits: torch.Tensor, obs: torch.Tensor) -> torch.Tensor:
        term = self.action_term(obs)
        if term is None:
            return logits
        e = term.shape[1]
        return torch.cat([logits[:, :e].float() + term, logits[:, e:].float()], 1)

    def actor_logits(self, obs: torch.Tensor) -> torch.Tensor:
        """``(N, A)``: the actor's logits through the plain modules (trunk, actor head and
        the action pieces' term), autocast-friendly: what behaviour cloning trains."""
        return self._with_action_term(self.actor(self.trunk(obs)), obs)

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        logits, value = self.head_forward(obs)
        return self._with_action_term(logits, obs), value

    def head_forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """``(head logits (N, A), value (N,))`` without the action pieces' term
        (:meth:`action_term`, which :meth:`forward` adds): what a sampler that adds the
        term at the legal actions alone takes. bfloat16 views of one ``(N, A + 1)``
        output on the fused path."""
        z = self._features(obs)
        if not self.fused:
            return self.actor(z), self.critic(z).squeeze(-1)
        w, b = self._head()
        out = _linear(z.to(_BF16), w.to(_BF16), b.to(_BF16))
        return out[:, :-1], out[:, -1]

    def legal_forward(
        self, obs: torch.Tensor | ObservationRows, index: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """``(logits at index (N, K) float32, value (N,) float32)`` for observations ``obs``
        ((N, D), or :class:`ObservationRows` read in place): the logits of each
        sample's legal actions only (``index`` from
        :func:`~tabletop_core.train.sample.legal_index`), what the PPO loss needs. On a CPU
        through :class:`_LegalHead` (fused bfloat16) or :class:`_LegalDots` (float32: only
        those logits and the value are computed); elsewhere (CUDA, bfloat16 autocast) the
        modules. Under the plain path call it inside the trainer's
        autocast."""
        z = self._features(obs)
        if self.fused:
            w, b = self._head()
            if self._scratch is None or self._scratch[0].shape[0] != z.shape[0]:
                self._scratch = (
                    torch.empty((z.shape[0], w.shape[0]), dtype=_BF16),
                    np.zeros(w.shape[0], np.float32),
                )
            logits, value = _LegalHead.apply(z, w, b, index, self._scratch)
        elif z.dtype == torch.float32 and z.device.type == "cpu":
            logits, value = _LegalDots.apply(z, *self._head(), index)
        else:
            logits, value = self.actor(z).gather(1, index).float(), self.critic(z).squeeze(-1).float()
        if self.action_gain is None:
            return logits, value
        return logits + piece_term_at(
            obs, index, self.action_gain * ACTION_GAIN_SCALE, self.action_inputs
        ), value

    def value_only(self, obs: torch.Tensor | ObservationRows) -> torch.Tensor:
        """The value (N,) of observations ``obs`` ((N, D), or :class:`ObservationRows`)
        from the trunk's features with no gradient into the trunk: what the critic warm-up
        trains, leaving the actor (a cloned policy) untouched."""
        with torch.no_grad():
            z = self._features(obs)
        if self.fused:
            return torch.addmm(self.critic.bias.to(_BF16), z, self.critic.weight.to(_BF16).t()).squeeze(-1)
        return self.critic(z).squeeze(-1)

    def policy_weights(self) -> dict[str, np.ndarray]:
        """The actor as :class:`~tabletop_core.agents.policy.MLPPolicy` weights (``W0, b0, ...``,
        ``W_k`` of shape (in, out), float32, and ``activation``; with action pieces
        ``action_inputs`` (k, 2) int64 and ``action_gain`` (k,) float32, the gains times
        :data:`ACTION_GAIN_SCALE`); the value head is left out."""
        linears = [m for m in self.trunk if isinstance(m, nn.Linear)] + [self.actor]
        out: dict[str, np.ndarray] = {}
        for k, lin in enumerate(linears):
            out[f"W{k}"] = lin.weight.detach().to(torch.float32).cpu().numpy().T.copy()
            out[f"b{k}"] = lin.bias.detach().to(torch.float32).cpu().numpy().copy()
        out["activation"] = np.array(self.activation)
        if self.action_gain is not None:
            out["action_inputs"] = np.array(self.action_inputs, np.int64).reshape(-1, 2)
            out["action_gain"] = (self.action_gain.detach().float().cpu() * ACTION_GAIN_SCALE).numpy()
        return out


def piece_term(obs: torch.Tensor, gains: torch.Tensor, inputs: tuple[tuple[int, int], ...]) -> torch.Tensor:
    """``(N, E)`` float32, ``sum_j gains[j] * obs[:, o_j + a]`` for ``a < n_j`` (0 past a
    piece), ``inputs`` the pieces' ``(o_j, n_j)`` and ``E`` the longest: the action
    pieces' term over every action they cover (:meth:`Agent.action_term`)."""
    width = max(n for _, n in inputs)
    term = None
    for j, (o, n) in enumerate(inputs):
        part = obs[:, o : o + n].float() * gains[j]
        if n < width:
            part = nn.functional.pad(part, (0, width - n))
        term = part if term is None else term + part
    return term


def piece_values_at(
    obs: torch.Tensor,
    index: torch.Tensor,
    inputs: tuple[tuple[int, int], ...],
    rows: torch.Tensor | None = None,
) -> torch.Tensor:
    """``(N, J, K)`` float32, no gradient: each action piece's entry at each action of
    ``index`` ((N, K) int64), ``obs[r_i, o_j + index[i, k]]`` (0 past piece ``j``), for
    observations ``obs`` and the pieces' ``(o_j, n_j)`` ``inputs``; ``r_i`` is
    ``rows[i]`` ((N,) int64 rows of ``obs``), or ``i`` when ``rows`` is None (``obs``
    (N, D))."""
    with torch.no_grad():
        out = torch.empty((index.shape[0], len(inputs), index.shape[1]), device=obs.device)
        for j, (o, n) in enumerate(inputs):
            cols = (index + o).clamp(max=o + n - 1)
            at = (obs.gather(1, cols) if rows is None else obs[rows[:, None], cols]).float()
            out[:, j] = torch.where(index < n, at, 0.0)
    return out


def piece_term_at(
    obs: torch.Tensor | ObservationRows,
    index: torch.Tensor,
    gains: torch.Tensor,
    inputs: tuple[tuple[int, int], ...],
) -> torch.Tensor:
    """:func:`piece_term` at ``index`` ((N, K) int64) alone: (N, K) float32, from the
    pieces' entries there (:func:`piece_values_of`), which take no gradient, so only the
    gains' (N, K) products enter autograd, not (N, E) ones; the update's legal logits
    (:meth:`Agent.legal_forward`)."""
    return piece_sum(piece_values_of(obs, index, inputs), gains)


def piece_values_of(
    obs: torch.Tensor | ObservationRows, index: torch.Tensor, inputs: tuple[tuple[int, int], ...]
) -> torch.Tensor:
    """``(N, J, K)`` float32: the action pieces' entries at ``index`` ((N, K) int64) of
    observations ``obs`` ((N, D), or :class:`ObservationRows`, which carry them for the
    batch's legal actions), :func:`piece_values_at`."""
    if isinstance(obs, ObservationRows) and obs.piece_values is not None:
        return obs.piece_values.index_select(0, obs.rows if obs.samples is None else obs.samples)
    if isinstance(obs, ObservationRows):
        return piece_values_at(obs.obs, index, inputs, obs.rows)
    return piece_values_at(obs, index, inputs)


def piece_sum(values: torch.Tensor, gains: torch.Tensor) -> torch.Tensor:
    """``(N, K)``: ``sum_j values[:, j] * gains[j]`` for the pieces' entries ``values``
    (N, J, K) and gains ``gains`` (J,), summed in piece order."""
    total = None
    for j in range(values.shape[1]):
        part = values[:, j] * gains[j]
        total = part if total is None else total + part
    return total


def model_flops_per_sample(
    obs_dim: int,
    num_actions: int,
    hidden: tuple[int, ...],
    head_outputs: int | None = None,
    input_nonzeros: float | None = None,
    update: bool = False,
) -> float:
    """Multiply-add FLOPs (2 per weight) of one forward pass for one observation, counted
    from the layer shapes (trunk, policy head and value head). ``head_outputs``: the head
    outputs computed, ``num_actions + 1`` (the default) for the whole head, ``K + 1`` where
    only the legal logits and the value are (:class:`_LegalDots`). ``input_nonzeros``: the
    mean nonzero observation entries a sample where the first layer reads only those
    (:class:`_SparseLinear`), ``obs_dim`` (the default) for a dense first layer.
    ``update``: the update's forward and backward pass instead: the forward pass, every
    layer's weight gradient, and the input gradient of every layer but the first, since
    the observations take none (three forward passes less the first layer's product)."""
    widths = [obs_dim, *hidden]
    outputs = num_actions + 1 if head_outputs is None else head_outputs
    first = obs_dim if input_nonzeros is None else input_nonzeros
    trunk = first * widths[1] + sum(a * b for a, b in zip(widths[1:-1], widths[2:]))
    forward = 2 * (trunk + widths[-1] * outputs)
    return 3 * forward - 2 * first * widths[1] if update else forward


def masked_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """``logits`` with illegal actions (``mask`` False) set to :data:`NEG` (``torch.where``,
    faster than ``masked_fill(~mask, ...)``)."""
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
