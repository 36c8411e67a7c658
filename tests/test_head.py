"""The legal-action head's kernels (``tabletop_core.train.head``, the float32 CPU update)
against a dense float64 reference: every output of the head, then the logits gathered at
the legal actions, and the gradients a gather scatters back (repeated columns add up)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from tabletop_core.train.head import legal_grad_input, legal_grad_weight, legal_logits


def _case(n: int, h: int, a: int, k: int, seed: int):
    rng = np.random.default_rng(seed)
    z = rng.standard_normal((n, h)).astype(np.float32)
    weight = rng.standard_normal((a + 1, h)).astype(np.float32)
    bias = rng.standard_normal(a + 1).astype(np.float32)
    index = np.sort(rng.integers(0, a, (n, k)), axis=1).astype(np.int64)
    index[:, -1] = index[:, 0]  # padding repeats a column (legal_index)
    grad_logits = rng.standard_normal((n, k)).astype(np.float32)
    grad_logits[::3, -1] = 0.0  # the loss gives the padding no gradient
    grad_value = rng.standard_normal(n).astype(np.float32)
    return z, weight, bias, index, grad_logits, grad_value


def _dense_reference(z, weight, bias, index, grad_logits, grad_value):
    """The dense head in float64: all A + 1 outputs, a gather, and the scatter-add back."""
    z64, w64 = z.astype(np.float64), weight.astype(np.float64)
    out = z64 @ w64.T + bias
    rows = np.arange(z.shape[0])[:, None]
    grad_out = np.zeros_like(out)
    np.add.at(grad_out, (np.broadcast_to(rows, index.shape), index), grad_logits)
    grad_out[:, -1] += grad_value
    return out[rows, index], out[:, -1], grad_out @ w64, grad_out.T @ z64, grad_out.sum(0)


@settings(max_examples=25, deadline=None)
@given(
    n=st.integers(1, 40),
    h=st.integers(1, 70),
    a=st.integers(1, 50),
    k=st.integers(1, 9),
    seed=st.integers(0, 2**32 - 1),
)
def test_kernels_match_the_dense_head(n, h, a, k, seed):
    z, weight, bias, index, gl, gv = _case(n, h, a, k, seed)
    logits, value = np.empty((n, k), np.float32), np.empty(n, np.float32)
    grad_z = np.empty_like(z)
    grad_w, grad_b = np.full_like(weight, np.nan), np.full_like(bias, np.nan)
    legal_logits(z, weight, bias, index, logits, value)
    legal_grad_input(gl, gv, index, weight, grad_z)
    legal_grad_weight(gl, gv, index, z, grad_w, grad_b)
    ref = _dense_reference(z, weight, bias, index, gl, gv)
    scale = np.sqrt(h) * 4.0  # float32 sums of h products of unit normals
    for got, want in zip((logits, value, grad_z, grad_w, grad_b), ref):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5 * scale * max(n, k))


def test_rows_no_sample_reached_get_zero_gradient():
    z, weight, bias, index, gl, gv = _case(8, 16, 30, 4, 0)
    index[:] = 3  # every logit on one column
    grad_w, grad_b = np.full_like(weight, np.nan), np.full_like(bias, np.nan)
    legal_grad_weight(gl, gv, index, z, grad_w, grad_b)
    untouched = [c for c in range(30) if c != 3]
    assert np.all(grad_w[untouched] == 0.0) and np.all(grad_b[untouched] == 0.0)
    np.testing.assert_allclose(grad_b[3], gl.sum(), rtol=1e-5)
    np.testing.assert_allclose(grad_b[30], gv.sum(), rtol=1e-5)


def test_the_same_floats_on_every_call():
    z, weight, bias, index, gl, gv = _case(64, 48, 40, 7, 1)
    outs = []
    for _ in range(2):
        logits, value = np.empty((64, 7), np.float32), np.empty(64, np.float32)
        grad_z, grad_w, grad_b = np.empty_like(z), np.empty_like(weight), np.empty_like(bias)
        legal_logits(z, weight, bias, index, logits, value)
        legal_grad_input(gl, gv, index, weight, grad_z)
        legal_grad_weight(gl, gv, index, z, grad_w, grad_b)
        outs.append((logits, value, grad_z, grad_w, grad_b))
    for x, y in zip(*outs):
        assert np.array_equal(x, y)
