"""The forward pass of a trained MLP policy in compiled code: the greedy action of a batch
of observations (:func:`greedy_actions`, what :class:`~tabletop_core.agents.forward.PackedMLP`
runs) and the legal actions' logits of one observation (:func:`legal_logits`, what the
search asks of a policy inside its rollouts, ``docs/search-bot.md``).

A network travels as the tuple ``(scale, weights, biases, relu, pieces, gains)``
(:attr:`PackedMLP.args <tabletop_core.agents.forward.PackedMLP.args>`): ``scale`` (D,)
float32 multiplied into the observation; one float32 ``W`` per layer, input-major except
the last, stored action-major so a legal action's logit reads one row; one float32 ``b`` per
layer; ``relu`` the hidden activation (else ``tanh``); the action pieces ``pieces`` (k, 2)
int64 (offset, size) and their ``gains`` (k,) float32
(:class:`~tabletop_core.agents.policy.MLPPolicy`).

Each row is computed on its own, in a fixed order, so a row's action does not depend on
the other rows of the batch. The loops skip what a greedy choice does not need: the first
layer adds only the weight rows of the nonzero observation values, and the last layer
computes only the logits of the legal actions.
"""

from __future__ import annotations

import numpy as np

from tabletop_core.kernel.jit import kernel
from tabletop_core.kernel.mathf import tanh_f32

__all__ = ["greedy_actions", "legal_logits", "net_action", "net_scratch"]


@kernel(fastmath=True)
def _activate(x, relu):
    for h in range(x.shape[0]):
        v = x[h]
        x[h] = (v if v > 0.0 else np.float32(0.0)) if relu else tanh_f32(v)


@kernel(fastmath=True)
def _first_layer(obs, i, scale, w, b, x):
    """``x = (obs[i] * scale) @ w + b``, adding only the rows of nonzero inputs."""
    for h in range(x.shape[0]):
        x[h] = b[h]
    for j in range(obs.shape[1]):
        v = obs[i, j]
        if v != 0.0:
            v = v * scale[j]
            row = w[j]
            for h in range(x.shape[0]):
                x[h] += v * row[h]


@kernel(fastmath=True)
def _dense(x, rows, w, b, y):
    """``y[r] = x[r] @ w + b`` for ``r < rows`` (``w`` input-major): each weight row is
    read once for the block of rows, and each ``y[r, h]`` sums over the inputs in order."""
    nout = w.shape[1]
    for r in range(rows):
        for h in range(nout):
            y[r, h] = b[h]
    for j in range(w.shape[0]):
        wj = w[j]
        for r in range(rows):
            v = x[r, j]
            yr = y[r]
            for h in range(nout):
                yr[h] += v * wj[h]


@kernel(fastmath=True)
def _logit(obs, i, a, x, wt, b, pieces, gains):
    """The logit of action ``a`` for row ``i``, ``x`` its last hidden layer and ``wt`` the
    last layer, action-major."""
    row = wt[a]
    logit = b[a]
    for j in range(x.shape[0]):
        logit += x[j] * row[j]
    for p in range(pieces.shape[0]):
        if a < pieces[p, 1]:
            logit += gains[p] * obs[i, pieces[p, 0] + a]
    return logit


@kernel(fastmath=True)
def _best_legal(obs, mask, i, x, wt, b, pieces, gains):
    """The legal action of row ``i`` with the largest logit (the first on a tie; 0 when
    none is legal); ``wt`` is the last layer, action-major."""
    best = 0
    best_logit = np.float32(0.0)
    found = False
    for a in range(mask.shape[1]):
        if mask[i, a] == 0:
            continue
        logit = _logit(obs, i, a, x, wt, b, pieces, gains)
        if not found or logit > best_logit:
            best, best_logit, found = a, logit, True
    return best


BLOCK = 16
"""Rows computed together in the hidden layers: each weight row is read once a block."""


@kernel(fastmath=True)
def _hidden(obs, net, buf):
    """Row 0 of ``obs`` (1, D) through the hidden layers of ``net``, ``buf`` (2, W)
    float32 scratch; returns the last hidden layer (n,) (the scaled observation where the
    network has no hidden layer). Each layer is a whole row of ``buf`` (C-contiguous),
    so its sums run over whole vectors; they are :func:`greedy_actions`' sums."""
    scale, weights, biases, relu = net[0], net[1], net[2], net[3]
    layers = len(weights)
    n = obs.shape[1] if layers == 1 else weights[0].shape[1]
    x = buf[0][:n]
    if layers == 1:
        for j in range(n):
            x[j] = obs[0, j] * scale[j]
        return x
    _first_layer(obs, 0, scale, weights[0], biases[0], x)
    _activate(x, relu)
    for k in range(1, layers - 1):
        m = weights[k].shape[1]
        y = buf[k % 2][:m]
        _dense(x.reshape((1, n)), 1, weights[k], biases[k], y.reshape((1, m)))
        _activate(y, relu)
        x, n = y, m
    return x


@kernel(fastmath=True)
def _width(obs, weights):
    """The widest of the observation and the hidden layers."""
    width = obs.shape[1]
    for k in range(len(weights) - 1):
        width = max(width, weights[k].shape[1])
    return width


@kernel(fastmath=True)
def greedy_actions(obs, mask, scale, weights, biases, relu, pieces, gains, out):
    """``out[i]``: the greedy legal action of observation ``obs[i]`` (B, D) float32 under
    ``mask[i]`` (B, A) int8, for the packed MLP (the module docstring's network, its
    fields as separate arguments). One thread; each row's sums in a fixed order,
    independent of the other rows."""
    layers = len(weights)
    buf = np.empty((2, BLOCK, _width(obs, weights)), np.float32)
    for start in range(0, obs.shape[0], BLOCK):
        rows = min(BLOCK, obs.shape[0] - start)
        n = obs.shape[1]
        for r in range(rows):
            if layers == 1:  # no hidden layer: the logits read the scaled observation
                for j in range(n):
                    buf[0, r, j] = obs[start + r, j] * scale[j]
            else:
                _first_layer(obs, start + r, scale, weights[0], biases[0], buf[0, r, : weights[0].shape[1]])
                _activate(buf[0, r, : weights[0].shape[1]], relu)
        if layers > 1:
            n = weights[0].shape[1]
        for k in range(1, layers - 1):
            m = weights[k].shape[1]
            _dense(buf[(k - 1) % 2, :, :n], rows, weights[k], biases[k], buf[k % 2, :, :m])
            for r in range(rows):
                _activate(buf[k % 2, r, :m], relu)
            n = m
        last = buf[max(layers - 2, 0) % 2]
        for r in range(rows):
            out[start + r] = _best_legal(
                obs, mask, start + r, last[r, :n], weights[layers - 1], biases[layers - 1], pieces, gains
            )


@kernel(fastmath=True)
def net_scratch(obs, net):
    """The scratch :func:`net_action` and :func:`legal_logits` need for observations like
    ``obs`` (1, D) under ``net``: (2, W) float32."""
    return np.empty((2, _width(obs, net[1])), np.float32)


@kernel(fastmath=True)
def net_action(obs, mask, net, buf):
    """The greedy legal action of the observation ``obs`` (1, D) float32 under ``mask``
    (1, A) int8 for the network ``net`` (the module docstring), ``buf`` from
    :func:`net_scratch`: :func:`greedy_actions` on one row, with the same sums."""
    weights, biases = net[1], net[2]
    last = len(weights) - 1
    x = _hidden(obs, net, buf)
    return _best_legal(obs, mask, 0, x, weights[last], biases[last], net[4], net[5])


@kernel(fastmath=True)
def legal_logits(obs, mask, net, buf, logits):
    """The logits of the legal actions of ``obs`` (1, D) float32 under ``mask`` (1, A)
    int8 into ``logits`` (A,) float32, -inf where ``mask`` is 0, for the network ``net``
    (the module docstring), ``buf`` from :func:`net_scratch`."""
    weights, biases = net[1], net[2]
    last = len(weights) - 1
    x = _hidden(obs, net, buf)
    for a in range(mask.shape[1]):
        if mask[0, a] == 0:
            logits[a] = -np.inf
        else:
            logits[a] = _logit(obs, 0, a, x, weights[last], biases[last], net[4], net[5])
