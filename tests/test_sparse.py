"""The sparse first layer (``tabletop_core.train.sparse``, the float32 CPU trainer's): the
kernels against a dense float64 reference on observations of every density, the shards,
the same floats whatever the thread count, and the network with the layer on against the
same network with it off (outputs and every parameter's gradient)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tabletop_core.kernel.jit import column_blocks, shards
from tabletop_core.train.sparse import density, sparse_linear, sparse_weight_grad


def _case(n: int, d: int, h: int, fill: float, seed: int):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, d)).astype(np.float32)
    x[rng.random((n, d)) >= fill] = 0.0
    w = rng.standard_normal((d, h)).astype(np.float32)
    bias = rng.standard_normal(h).astype(np.float32)
    g = rng.standard_normal((n, h)).astype(np.float32)
    return x, w, bias, g


def _run(x, w, bias, g, threads: int):
    n, d = x.shape
    h = w.shape[1]
    out, gw = np.full((n, h), np.nan, np.float32), np.full((h, d), np.nan, np.float32)
    cols, count = np.full((n, d), -1, np.int32), np.full(n, -1, np.int32)
    sparse_linear(shards(n, threads), x, w, bias, out, cols, count)
    bounds, blocks = column_blocks(h, d, threads)
    blocks.fill(np.nan)  # the kernel clears its own block
    sparse_weight_grad(bounds, x, g, cols, count, blocks, gw)
    return out, gw, cols, count


@settings(max_examples=30, deadline=None)
@given(
    n=st.integers(1, 40),
    d=st.integers(1, 60),
    h=st.integers(1, 70),
    fill=st.sampled_from([0.0, 0.05, 0.3, 1.0]),
    threads=st.integers(1, 3),
    seed=st.integers(0, 2**32 - 1),
)
def test_kernels_match_the_dense_layer(n, d, h, fill, threads, seed):
    x, w, bias, g = _case(n, d, h, fill, seed)
    out, gw, cols, count = _run(x, w, bias, g, threads)
    x64 = x.astype(np.float64)
    np.testing.assert_allclose(out, x64 @ w + bias, rtol=1e-5, atol=1e-4 * np.sqrt(d))
    np.testing.assert_allclose(gw, g.T.astype(np.float64) @ x64, rtol=1e-5, atol=1e-4 * np.sqrt(n))
    assert np.array_equal(count, np.count_nonzero(x, axis=1))
    for i in range(n):
        assert np.array_equal(cols[i, : count[i]], np.flatnonzero(x[i]))


def test_the_same_floats_whatever_the_thread_count():
    x, w, bias, g = _case(97, 214, 256, 0.1, 3)
    first = _run(x, w, bias, g, 1)
    for threads in (2, 4):
        for a, b in zip(first, _run(x, w, bias, g, threads)):
            assert np.array_equal(a, b)


@pytest.mark.parametrize(
    ("n", "parts", "align"), [(256, 2, 16), (250, 2, 16), (1024, 3, 1), (3, 4, 1), (0, 2, 1)]
)
def test_shards_cover_the_range_in_aligned_rising_pieces(n, parts, align):
    bounds = shards(n, parts, align)
    assert bounds.shape == (parts + 1,) and bounds[0] == 0 and bounds[-1] == n
    assert np.all(np.diff(bounds) >= 0) and np.all(bounds[1:-1] % align == 0)


def test_density_counts_nonzero_entries():
    assert density(np.array([[0.0, 1.0], [0.5, 0.0]], np.float32)) == 0.5
    assert density(np.zeros((0, 3), np.float32)) == 0.0


def test_network_with_the_sparse_layer_matches_the_dense_one():
    torch = pytest.importorskip("torch")
    from tabletop_core.train.model import Agent
    from tabletop_core.train.sample import legal_index

    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    n, d, a = 64, 214, 393
    obs = (rng.random((n, d)) < 0.1).astype(np.float32) * rng.random((n, d)).astype(np.float32)
    masks = rng.random((n, a)) < 0.08
    masks[:, 0] = True
    k = int(masks.sum(1).max())
    index, valid, position = np.empty((n, k), np.int64), np.empty((n, k), np.bool_), np.empty(n, np.int64)
    legal_index(masks, np.zeros(n, np.int64), k, index, valid, position)
    index = torch.from_numpy(index)
    results = []
    for sparse in (False, True):
        torch.manual_seed(1)  # the same weights both times
        agent = Agent(d, a)
        agent.sparse_input = sparse
        logits, value = agent.legal_forward(torch.from_numpy(obs), index)
        (logits.sum() + value.square().sum()).backward()
        results.append((logits.detach(), value.detach(), [p.grad.clone() for p in agent.parameters()]))
        if sparse:
            assert agent.input_nonzeros[0] == np.count_nonzero(obs)
    (l0, v0, g0), (l1, v1, g1) = results
    torch.testing.assert_close(l1, l0, rtol=1e-4, atol=1e-5)
    torch.testing.assert_close(v1, v0, rtol=1e-4, atol=1e-5)
    for p0, p1 in zip(g0, g1):
        torch.testing.assert_close(p1, p0, rtol=1e-4, atol=1e-4)


def test_observations_of_the_wrong_width_get_a_clear_error():
    """The sparse layer indexes its weights by the observation's columns: a wider row must
    be refused, not read past the weights."""
    torch = pytest.importorskip("torch")
    from tabletop_core.train.model import Agent

    agent = Agent(8, 5)
    agent.sparse_input = True
    for bad in (torch.ones(3, 9), torch.ones(3, 7), torch.ones(9)):
        with pytest.raises(ValueError, match="this network takes 8"):
            agent.features_and_head(bad)
    z, _, _ = agent.features_and_head(torch.ones(3, 8))
    assert z.shape == (3, 256)
    assert agent.features_and_head(torch.ones(8))[0].shape == (256,)  # one observation: dense
