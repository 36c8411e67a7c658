"""Gradient clipping and the Adam step in one compiled pass (the CPU trainer's update).

Optimization of the end of :func:`ppo.ppo_step <tabletop_core.train.ppo.ppo_step>`
(``clip_grad_norm_`` then ``Adam.step()``): the same step, faster because it is two
compiled passes instead of a dozen dispatched torch operations.

``nn.utils.clip_grad_norm_`` and ``torch.optim.Adam(fused=True)`` take a dozen torch
operations a minibatch over the network's eight parameter tensors (a norm per tensor,
their norm, a scale, then Adam's kernel), each with its own dispatch, which on a few cores
costs more than their arithmetic.
:func:`clip_and_adam` does the same arithmetic in two passes over the parameters. The
moments and step counts stay in ``torch.optim.Adam``'s own state, so checkpoints and
``--resume`` work with either path. :func:`clip_and_adam_bf16` is the same step reading
bfloat16 gradients in place and writing the weights' bfloat16 copies as it goes (the
fused update, :mod:`tabletop_core.train.fused`), its arrays listed once by
:class:`AdamArrays`.
"""

from __future__ import annotations

import math

import numpy as np
import torch
from numba.core import types
from numba.extending import overload

from tabletop_core.kernel.bits import bf16_bits, bf16_value
from tabletop_core.kernel.jit import kernel

__all__ = ["AdamArrays", "KeptGradientsStep", "clip_and_adam", "clip_and_adam_bf16", "compiled_step"]


def _grad_at(g, i):
    """``g[i]`` as float32: float32 gradients as they are, int16 ones as bfloat16 bits."""
    return np.float32(g[i]) if g.dtype.kind == "f" else bf16_value(g[i])


@overload(_grad_at, jit_options={"nogil": True, "inline": "always"})
def _grad_at_compiled(g, i):
    if isinstance(g.dtype, types.Integer):
        return lambda g, i: bf16_value(g[i])
    return lambda g, i: g[i]


@kernel(fastmath={"reassoc"})
def _squares(grads):
    """The sum of the squares of all of ``grads`` (a tuple of 1-D float32 arrays, or of
    int16 bfloat16 bits), in float64 (reassociated, so the sum runs in vector lanes)."""
    total = 0.0
    for t in range(len(grads)):
        g = grads[t]
        for i in range(g.shape[0]):
            x = np.float64(_grad_at(g, i))
            total += x * x
    return total


@kernel(inline="always")
def _adam_tensor(p, g, m, v, shadow, c):
    """Adam's step on one parameter tensor (1-D views), its gradient ``g`` (float32, or
    int16 bfloat16 bits); ``c`` the constants (:func:`_adam_constants`); the new
    parameters' bfloat16 bits into ``shadow`` unless it is empty."""
    scale, step_size, bc2_sqrt, b2, e, one_b1, one_b2 = c
    keep = shadow.shape[0] > 0
    for i in range(p.shape[0]):
        gi = _grad_at(g, i) * scale
        mi = m[i] + one_b1 * (gi - m[i])
        vi = b2 * v[i] + one_b2 * gi * gi
        m[i] = mi
        v[i] = vi
        p[i] -= step_size * mi / (np.sqrt(vi) / bc2_sqrt + e)
        if keep:
            shadow[i] = bf16_bits(p[i])


@kernel(inline="always")
def _adam_constants(norm, max_norm, lr, beta1, beta2, eps, step):
    """The clipping scale and Adam's float32 constants for step number ``step``."""
    coef = max_norm / (norm + 1e-6)
    scale = np.float32(coef if coef < 1.0 else 1.0)
    step_size = np.float32(lr / (1.0 - beta1**step))
    bc2_sqrt = np.float32(math.sqrt(1.0 - beta2**step))
    return (
        scale,
        step_size,
        bc2_sqrt,
        np.float32(beta2),
        np.float32(eps),
        np.float32(1.0 - beta1),
        np.float32(1.0 - beta2),
    )


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
    norm = math.sqrt(_squares(grads))
    c = _adam_constants(norm, max_norm, lr, beta1, beta2, eps, step)
    none = np.empty(0, np.int16)
    for t in range(len(params)):
        _adam_tensor(params[t], grads[t], exp_avgs[t], exp_avg_sqs[t], none, c)
    return norm


@kernel
def clip_and_adam_bf16(
    params, grads, grads_bf16, exp_avgs, exp_avg_sqs, shadows, max_norm, lr, beta1, beta2, eps, step
):
    """:func:`clip_and_adam` with some gradients in bfloat16 (the fused CPU step's weight
    gradients, read in place) and the new parameters' bfloat16 copies written in the same
    pass (the weights the fused step's next products read).

    Args:
        params, exp_avgs, exp_avg_sqs, max_norm, lr, beta1, beta2, eps, step: as
            :func:`clip_and_adam`.
        grads: tuple of 1-D float32 arrays: parameter ``t``'s gradient, or empty where
            ``grads_bf16[t]`` holds it.
        grads_bf16: tuple of 1-D int16 arrays (bfloat16 bits): parameter ``t``'s gradient,
            or empty.
        shadows: tuple of 1-D int16 arrays: out, the bfloat16 bits of parameter ``t`` after
            the step (rounded to nearest even), or empty for none.

    Returns:
        The gradients' total norm before clipping (float).
    """
    norm = math.sqrt(_squares(grads) + _squares(grads_bf16))
    c = _adam_constants(norm, max_norm, lr, beta1, beta2, eps, step)
    for t in range(len(params)):
        if grads_bf16[t].shape[0] > 0:
            _adam_tensor(params[t], grads_bf16[t], exp_avgs[t], exp_avg_sqs[t], shadows[t], c)
        else:
            _adam_tensor(params[t], grads[t], exp_avgs[t], exp_avg_sqs[t], shadows[t], c)
    return norm


class AdamArrays:
    """The flat arrays of compiled Adam steps on ``optim``'s parameters, listed once: what
    :func:`compiled_step` takes on each call, kept by a caller whose gradients stay in the
    same tensors from step to step (:class:`~tabletop_core.train.fused.FusedStep`). Valid while
    the parameters, the gradient tensors, the shadows and the optimizer's state tensors
    stay the same objects (a ``load_state_dict`` replaces the state's: list them again).

    Args:
        optim: a ``torch.optim.Adam`` over CPU float32 parameters in one group; its
            state is created here as torch creates it on its first step.
        grads: one gradient per parameter, in the parameter's shape and memory layout:
            float32, or bfloat16 (read in place, exactly converted); None: each
            parameter's ``grad`` as it is now.
        shadows: one bfloat16 tensor or None per parameter, in the parameter's shape and
            layout, given the new parameters rounded to bfloat16 at each step; or None.

    Raises:
        ValueError: if the optimizer uses weight decay, AMSGrad or several parameter
            groups, a parameter has no gradient, or ``grads`` / ``shadows`` do not match
            the parameters (count, shape, layout, dtype).
    """

    def __init__(
        self,
        optim: torch.optim.Adam,
        grads: list[torch.Tensor] | None = None,
        shadows: list[torch.Tensor | None] | None = None,
    ):
        if len(optim.param_groups) != 1:
            raise ValueError(f"compiled_step takes one parameter group, got {len(optim.param_groups)}")
        group = optim.param_groups[0]
        if group.get("weight_decay", 0) or group.get("amsgrad", False):
            raise ValueError("compiled_step is plain Adam: no weight decay, no AMSGrad")
        params = group["params"]
        if grads is None and any(p.grad is None for p in params):
            raise ValueError("compiled_step needs a gradient for every parameter (after backward)")
        _check_like(params, grads, "grads", (torch.float32, torch.bfloat16))
        _check_like(params, shadows, "shadows", (torch.bfloat16,))
        states = _adam_states(optim, params, with_grads=grads is None)
        self.group = group
        self.steps = [st["step"].numpy() for st in states]
        self.mixed = grads is not None or shadows is not None
        with torch.no_grad():
            self.params = tuple(_flat(p.detach()) for p in params)
            self.moments = (
                tuple(_flat(st["exp_avg"]) for st in states),
                tuple(_flat(st["exp_avg_sq"]) for st in states),
            )
            gs = grads if grads is not None else [p.grad for p in params]
            none32, none16 = np.empty(0, np.float32), np.empty(0, np.int16)
            self.g32 = tuple(_flat(g) if g.dtype == torch.float32 else none32 for g in gs)
            self.g16 = tuple(_flat(g.view(torch.int16)) if g.dtype == torch.bfloat16 else none16 for g in gs)
            self.shadows = tuple(
                none16 if s is None else _flat(s.view(torch.int16)) for s in shadows or [None] * len(params)
            )

    def step(self, max_norm: float) -> float:
        """Advance the step counts, clip the gradients to a total norm of ``max_norm`` and
        take Adam's step at the group's learning rate now; returns the norm before
        clipping."""
        for s in self.steps:
            s += 1
        group = self.group
        beta1, beta2 = group["betas"]
        consts = (float(max_norm), float(group["lr"]), float(beta1), float(beta2), float(group["eps"]))
        step = float(self.steps[0])
        if not self.mixed:
            return clip_and_adam(self.params, self.g32, *self.moments, *consts, step)
        return clip_and_adam_bf16(self.params, self.g32, self.g16, *self.moments, self.shadows, *consts, step)


class KeptGradientsStep:
    """A CPU PPO step that keeps its gradients in the same tensors from one minibatch to
    the next (:class:`~tabletop_core.train.fused.FusedStep`,
    :class:`~tabletop_core.train.plain.PlainStep`): a subclass gives :meth:`gradients`
    and calls :meth:`_keep_gradients` once; :meth:`step` adds the clipping and Adam step
    over an :class:`AdamArrays` listed on the first step and again after :meth:`refresh`.
    """

    def _keep_gradients(self, agent, linears, g_w, g_b, g_head_w, g_head_b, shadows=None) -> None:
        """Map each of ``agent``'s parameters to its kept gradient: the hidden ``linears``'
        ``g_w`` / ``g_b``, the actor's and critic's rows of the ``(A + 1, H)`` head block
        ``g_head_w`` / ``g_head_b``, a new tensor for the action pieces' gains; and
        ``shadows`` (``id(parameter)`` to its bfloat16 copy) for the Adam step to write."""
        a = agent.actor.weight.shape[0]
        grads: dict[int, torch.Tensor] = {}
        for lin, gw, gb in zip(linears, g_w, g_b):
            grads[id(lin.weight)], grads[id(lin.bias)] = gw, gb
        for head, rows in ((agent.actor, slice(0, a)), (agent.critic, slice(a, a + 1))):
            grads[id(head.weight)], grads[id(head.bias)] = g_head_w[rows], g_head_b[rows]
        if agent.action_gain is not None:
            grads[id(agent.action_gain)] = torch.empty_like(agent.action_gain, requires_grad=False)
        self._grad, self._shadows = grads, shadows
        self._arrays: AdamArrays | None = None
        self._optim: torch.optim.Adam | None = None

    def gradients(self, batch, idx: torch.Tensor, clip: float, vf_coef: float, ent_coef: float):
        """The PPO loss's gradients on minibatch ``idx``: ``(grads, stats)``, ``grads``
        mapping ``id(parameter)`` to its kept gradient, ``stats`` the loss's (5,)
        statistics."""
        raise NotImplementedError

    def refresh(self) -> None:
        """List the optimizer's arrays again at the next :meth:`step` (its state or the
        parameters were replaced: a checkpoint, the critic warm-up's steps)."""
        self._arrays = None

    def step(
        self,
        batch,
        idx: torch.Tensor,
        optim: torch.optim.Adam,
        clip: float,
        vf_coef: float,
        ent_coef: float,
        max_grad_norm: float,
    ) -> tuple[float, ...]:
        """Optimization of :func:`ppo.ppo_step <tabletop_core.train.ppo.ppo_step>` (Adam):
        :meth:`gradients`, then the clipping to a total norm of ``max_grad_norm`` and
        Adam's step on ``optim``, whose parameters are the agent's, reading the kept
        gradients in place (and writing the shadows). Returns the loss's five statistics.

        Raises:
            ValueError: if ``optim`` holds a parameter without a kept gradient (not the
                agent's), or is not plain Adam in one group (:class:`AdamArrays`).
        """
        _, stats = self.gradients(batch, idx, clip, vf_coef, ent_coef)
        if self._arrays is None or self._optim is not optim:
            params = optim.param_groups[0]["params"]
            missing = [k for k, p in enumerate(params) if id(p) not in self._grad]
            if missing:
                raise ValueError(
                    f"the optimizer's parameters {missing} have no kept gradient (not the agent's)"
                )
            shadows = None if self._shadows is None else [self._shadows.get(id(p)) for p in params]
            self._arrays = AdamArrays(optim, [self._grad[id(p)] for p in params], shadows)
            self._optim = optim
        self._arrays.step(max_grad_norm)
        return tuple(float(x) for x in stats)


def compiled_step(
    optim: torch.optim.Adam,
    max_norm: float,
    grads: list[torch.Tensor] | None = None,
    shadows: list[torch.Tensor | None] | None = None,
) -> float:
    """Clip the gradients of ``optim``'s parameters and take its Adam step with
    :func:`clip_and_adam` (:func:`clip_and_adam_bf16` where ``grads`` or ``shadows`` are
    given), keeping the optimizer's state (``step``, ``exp_avg``, ``exp_avg_sq``) as torch
    keeps it. ``grads`` and ``shadows`` as :class:`AdamArrays`; ``max_norm`` the gradients'
    largest total 2-norm (``math.inf``: no clipping). Returns the total norm before
    clipping.

    Raises:
        ValueError: as :class:`AdamArrays`.
    """
    return AdamArrays(optim, grads, shadows).step(max_norm)


def _check_like(params: list, tensors: list | None, name: str, dtypes: tuple) -> None:
    """Raise ValueError unless ``tensors`` (None, or one tensor or None per parameter) match
    ``params`` in shape and memory layout, in one of ``dtypes``."""
    if tensors is None:
        return
    if len(tensors) != len(params):
        raise ValueError(f"{name}: {len(tensors)} tensors for {len(params)} parameters")
    for k, (p, t) in enumerate(zip(params, tensors)):
        if t is None and name == "shadows":
            continue
        if t is None or t.shape != p.shape or t.stride() != p.stride() or t.dtype not in dtypes:
            got = "None" if t is None else f"{tuple(t.shape)} {t.dtype} strides {t.stride()}"
            raise ValueError(
                f"{name}[{k}] must be {tuple(p.shape)} with strides {p.stride()} in "
                f"{' or '.join(str(d) for d in dtypes)}, got {got}"
            )


def _adam_states(optim: torch.optim.Adam, params: list, with_grads: bool) -> list[dict]:
    """The parameters' Adam states, created as ``torch.optim.Adam`` creates them on its
    first step, moments (and gradients, ``with_grads``) in their parameter's layout."""
    states = []
    for p in params:
        st = optim.state[p]
        if not st:
            st["step"] = torch.tensor(0.0)
            st["exp_avg"] = torch.zeros_like(p, memory_format=torch.preserve_format)
            st["exp_avg_sq"] = torch.zeros_like(p, memory_format=torch.preserve_format)
        _match_layout(p, st, with_grads)
        states.append(st)
    return states


def _match_layout(p: torch.Tensor, st: dict, with_grad: bool = True) -> None:
    """Give ``p``'s gradient and Adam moments ``p``'s memory layout, so that :func:`_flat`
    lists the four in one order (a weight stored transposed,
    :attr:`~tabletop_core.train.model.Agent.sparse_input`, with moments restored from a
    checkpoint written before it was)."""
    if with_grad and p.grad.stride() != p.stride():
        p.grad = torch.empty_like(p).copy_(p.grad)
    for key in ("exp_avg", "exp_avg_sq"):
        if st[key].stride() != p.stride():
            st[key] = torch.empty_like(p).copy_(st[key])


def _flat(t: torch.Tensor) -> np.ndarray:
    """A 1-D NumPy view of ``t``'s elements in memory order (``t`` dense: contiguous, or
    a transposed contiguous matrix)."""
    return (t if t.is_contiguous() else t.t()).view(-1).numpy()
