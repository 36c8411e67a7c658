"""The legal-action head's kernels (``tabletop_core.train.head``, the float32 CPU update)
against a dense float64 reference: every output of the head, then the logits gathered at
the legal actions, and the gradients a gather scatters back (repeated columns add up); and
the sampler that computes only the legal logits against the masked sampler."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from tabletop_core.kernel.jit import column_blocks, shards
from tabletop_core.train.head import legal_grad_input, legal_grad_weight, legal_logits, logits_at
from tabletop_core.train.sample import masked_sample, sample_legal_dots

THREADS = st.integers(1, 3)  # thread counts the kernels split their work over
SEEDS = st.integers(0, 2**32 - 1)


def _head(z, weight, bias, index, gl, gv, threads=1):
    """The three update kernels on ``threads`` shards: logits, value, and the gradients."""
    n, k = index.shape
    logits, value = np.full((n, k), np.nan, np.float32), np.full(n, np.nan, np.float32)
    grad_z = np.full_like(z, np.nan)
    grad_w, grad_b = np.full_like(weight, np.nan), np.full_like(bias, np.nan)
    rows = shards(n, threads)
    cols, blocks = column_blocks(z.shape[1], weight.shape[0], threads)
    blocks.fill(np.nan)  # the kernel clears its own block
    legal_logits(rows, z, weight, bias, index, logits, value)
    legal_grad_input(rows, gl, gv, index, weight, grad_z)
    legal_grad_weight(cols, gl, gv, index, z, blocks, grad_w, grad_b)
    return logits, value, grad_z, grad_w, grad_b


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
    threads=THREADS,
    seed=SEEDS,
)
def test_kernels_match_the_dense_head(n, h, a, k, threads, seed):
    z, weight, bias, index, gl, gv = _case(n, h, a, k, seed)
    outs = _head(z, weight, bias, index, gl, gv, threads)
    ref = _dense_reference(z, weight, bias, index, gl, gv)
    scale = np.sqrt(h) * 4.0  # float32 sums of h products of unit normals
    for got, want in zip(outs, ref):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5 * scale * max(n, k))


def test_rows_no_sample_reached_get_zero_gradient():
    z, weight, bias, index, gl, gv = _case(8, 16, 30, 4, 0)
    index[:] = 3  # every logit on one column
    *_, grad_w, grad_b = _head(z, weight, bias, index, gl, gv, threads=2)
    untouched = [c for c in range(30) if c != 3]
    assert np.all(grad_w[untouched] == 0.0) and np.all(grad_b[untouched] == 0.0)
    np.testing.assert_allclose(grad_b[3], gl.sum(), rtol=1e-5)
    np.testing.assert_allclose(grad_b[30], gv.sum(), rtol=1e-5)


def test_the_same_floats_on_every_call_whatever_the_thread_count():
    z, weight, bias, index, gl, gv = _case(64, 48, 40, 7, 1)
    first = _head(z, weight, bias, index, gl, gv, 1)
    for threads in (1, 2, 3):
        for x, y in zip(first, _head(z, weight, bias, index, gl, gv, threads)):
            assert np.array_equal(x, y)


@settings(max_examples=20, deadline=None)
@given(
    n=st.integers(1, 30),
    h=st.integers(1, 40),
    a=st.integers(1, 140),
    threads=THREADS,
    seed=SEEDS,
    extra_width=st.integers(0, 140),
)
def test_sampler_from_features_draws_what_the_masked_sampler_draws(n, h, a, threads, seed, extra_width):
    """``sample_legal_dots`` computes the legal logits and the value itself; given the same
    logits (here every column by ``logits_at``, then the action pieces' term added to the
    first ``E`` columns, so the floats agree), its draws, their log-probabilities and the
    generator words are ``masked_sample``'s."""
    rng = np.random.default_rng(seed)
    z = rng.standard_normal((n, h)).astype(np.float32)
    weight = rng.standard_normal((a + 1, h)).astype(np.float32)
    bias = rng.standard_normal(a + 1).astype(np.float32)
    masks = rng.random((n, a)) < 0.2
    masks[np.arange(n), rng.integers(0, a, n)] = True  # every row has a legal action
    dense = np.empty((n, a + 1), np.float32)
    for i in range(n):
        logits_at(z, i, weight, bias, np.arange(a + 1), a + 1, dense[i])
    e = min(extra_width, a)
    extra = rng.standard_normal((n, e)).astype(np.float32)
    dense[:, :e] += extra
    words = rng.integers(1, 2**63, n, dtype=np.uint64)
    got_rng, want_rng = words.copy(), words.copy()
    got_a, want_a = np.empty(n, np.int64), np.empty(n, np.int64)
    got_lp, want_lp = np.empty(n, np.float32), np.empty(n, np.float32)
    value = np.empty(n, np.float32)
    count = sample_legal_dots(
        shards(n, threads), z, weight, bias, extra, masks, got_rng, got_a, got_lp, value
    )
    masked_sample(np.ascontiguousarray(dense[:, :a]), masks, want_rng, want_a, want_lp)
    assert count == masks.sum()
    assert np.array_equal(got_a, want_a) and np.array_equal(got_lp, want_lp)
    assert np.array_equal(got_rng, want_rng) and np.array_equal(value, dense[:, a])
    assert masks[np.arange(n), got_a].all()
