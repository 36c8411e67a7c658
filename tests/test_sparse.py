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
from tabletop_core.train.sparse import (
    COMMON_MIN_SHARE,
    SparseRows,
    density,
    sparse_linear,
    sparse_weight_grad,
)


def _case(n: int, d: int, h: int, fill: float, seed: int):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, d)).astype(np.float32)
    x[rng.random((n, d)) >= fill] = 0.0
    w = rng.standard_normal((d, h)).astype(np.float32)
    bias = rng.standard_normal(h).astype(np.float32)
    g = rng.standard_normal((n, h)).astype(np.float32)
    return x, w, bias, g


def _run(x, w, bias, g, threads: int, rows=None, gw_order="C"):
    """The sparse kernels on ``x``; the weight gradient into an (H, D) array stored in
    ``gw_order`` ("F": transposed, as the trainer stores its first layer)."""
    n, d = x.shape
    rows = np.arange(n, dtype=np.int64) if rows is None else rows
    h = w.shape[1]
    out, gw = np.full((len(rows), h), np.nan, np.float32), np.full((h, d), np.nan, np.float32, order=gw_order)
    listed = SparseRows(x, threads)
    lists = (listed.start, listed.count, listed.cols, listed.vals)
    sparse_linear(shards(len(rows), threads), rows, *lists, w, bias, out)
    bounds, blocks = column_blocks(h, d, threads)
    blocks.fill(np.nan)  # the kernel clears its own block
    sparse_weight_grad(bounds, rows, *lists, g[: len(rows)], blocks, gw)
    return out, gw, listed


@settings(max_examples=30, deadline=None)
@given(
    n=st.integers(1, 40),
    d=st.integers(1, 60),
    h=st.integers(1, 70),
    fill=st.sampled_from([0.0, 0.05, 0.3, 1.0]),
    threads=st.integers(1, 3),
    seed=st.integers(0, 2**32 - 1),
    gw_order=st.sampled_from(["C", "F"]),
)
def test_kernels_match_the_dense_layer(n, d, h, fill, threads, seed, gw_order):
    x, w, bias, g = _case(n, d, h, fill, seed)
    out, gw, listed = _run(x, w, bias, g, threads, gw_order=gw_order)
    x64 = x.astype(np.float64)
    np.testing.assert_allclose(out, x64 @ w + bias, rtol=1e-5, atol=1e-4 * np.sqrt(d))
    np.testing.assert_allclose(gw, g.T.astype(np.float64) @ x64, rtol=1e-5, atol=1e-4 * np.sqrt(n))
    assert np.array_equal(listed.count, np.count_nonzero(x, axis=1))
    for i in range(n):
        entries = slice(listed.start[i], listed.start[i] + listed.count[i])
        assert np.array_equal(listed.cols[entries], np.flatnonzero(x[i]))
        assert np.array_equal(listed.vals[entries], x[i][x[i] != 0])


@settings(max_examples=20, deadline=None)
@given(
    n=st.integers(1, 30),
    picks=st.integers(0, 40),
    fill=st.sampled_from([0.0, 0.1, 1.0]),
    threads=st.integers(1, 3),
    seed=st.integers(0, 2**32 - 1),
)
def test_rows_read_in_place_match_the_copied_rows(n, picks, fill, threads, seed):
    """A minibatch read from the batch's listing (any rows, repeats, any order) gives the
    floats of the same rows copied out and listed on their own: the trainer's update reads
    its minibatches that way."""
    x, w, bias, g = _case(n, 23, 37, fill, seed)
    g = np.random.default_rng(seed).standard_normal((picks, 37)).astype(np.float32)
    rows = np.random.default_rng(seed + 1).integers(0, n, picks).astype(np.int64)
    out, gw, _ = _run(x, w, bias, g, threads, rows)
    out_copy, gw_copy, _ = _run(np.ascontiguousarray(x[rows]).reshape(picks, 23), w, bias, g, threads)
    assert np.array_equal(out, out_copy) and np.array_equal(gw, gw_copy)


def test_listing_skips_negative_zeros_and_reads_every_run_and_the_tail():
    """The listing tests runs of 16 floats, then pairs, on their bits: a -0.0 makes a run
    look nonzero but is not listed, and entries at a run's edges and in the last ``D %
    16`` floats are."""
    x = np.zeros((3, 37), np.float32)
    x[0, [0, 15, 16, 31, 32, 36]] = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    x[1, [3, 17, 33]] = -0.0
    x[2, [1, 20, 35]] = [-0.0, 7.0, -0.0]
    listed = SparseRows(x, 2)
    assert listed.count.tolist() == [6, 0, 1]
    assert listed.cols[listed.start[0] : listed.start[0] + 6].tolist() == [0, 15, 16, 31, 32, 36]
    assert listed.vals[listed.start[0] : listed.start[0] + 6].tolist() == [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    assert (listed.cols[listed.start[2]], listed.vals[listed.start[2]]) == (20, 7.0)


def test_listing_refuses_what_is_not_a_float32_matrix():
    with pytest.raises(ValueError, match="float32"):
        SparseRows(np.zeros((2, 3)), 1)
    with pytest.raises(ValueError, match=r"\(M, D\)"):
        SparseRows(np.zeros(3, np.float32), 1)


def test_the_same_floats_whatever_the_thread_count():
    x, w, bias, g = _case(97, 214, 256, 0.1, 3)
    out, gw, listed = _run(x, w, bias, g, 1)
    for threads in (2, 4):
        out_t, gw_t, listed_t = _run(x, w, bias, g, threads)
        assert np.array_equal(out, out_t) and np.array_equal(gw, gw_t)
        assert np.array_equal(listed.start, listed_t.start) and np.array_equal(listed.count, listed_t.count)


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


def _observations_and_legal_index(rng, n: int, d: int, a: int, fill: float, legal: float):
    """``n`` sparse observations ((n, d) float32, about ``fill`` of them nonzero) and the
    padded legal index ((n, K) int64) of random masks over ``a`` actions, each with
    action 0 legal and taken."""
    from tabletop_core.train.sample import legal_index

    obs = (rng.random((n, d)) < fill).astype(np.float32) * rng.random((n, d)).astype(np.float32)
    masks = rng.random((n, a)) < legal
    masks[:, 0] = True
    k = int(masks.sum(1).max())
    index, valid, position = np.empty((n, k), np.int64), np.empty((n, k), np.bool_), np.empty(n, np.int64)
    legal_index(masks, np.zeros(n, np.int64), k, index, valid, position)
    return obs, index


def _with_common_columns(obs: np.ndarray, k: int, seed: int, held: float = 1.0) -> np.ndarray:
    """``obs`` with ``k`` random columns holding one nonzero value each, in every row, or
    with ``held`` < 1 in about that share of the rows (0 in the others)."""
    rng = np.random.default_rng(seed)
    cols = rng.choice(obs.shape[1], k, replace=False)
    values = rng.uniform(0.1, 1.0, k).astype(np.float32)
    obs[:, cols] = values * (rng.random((obs.shape[0], k)) < held) if held < 1.0 else values
    return obs


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(1, 40),
    d=st.integers(1, 60),
    fill=st.sampled_from([0.0, 0.1, 0.5, 1.0]),
    common=st.integers(0, 8),
    held=st.sampled_from([1.0, 0.8, 0.5]),
    threads=st.integers(1, 3),
    seed=st.integers(0, 2**32 - 1),
)
def test_rows_list_their_differences_from_the_common_row(n, d, fill, common, held, threads, seed):
    """``common_row``: the common row holds exactly the columns whose nonzero entries
    share one value and fill more than half the rows (a column that differs in one row
    does not count; none where they would save under ``COMMON_MIN_SHARE`` of the
    entries), each row lists the nonzero entries of its difference from it in column
    order, and the kernels plus the common row's part give the dense layer's output and
    weight gradient."""
    x, w, bias, g = _case(n, d, 9, fill, seed)
    x = _with_common_columns(x, min(common, d), seed, held)
    if n > 1 and d > 1:  # one value but in its last row: not common
        x[:, 0], x[-1, 0] = 0.5, 0.25
    listed = SparseRows(x, threads, common_row=True)
    nonzero = np.count_nonzero(x, axis=0)
    one_value = np.array([len(np.unique(x[:, j][x[:, j] != 0])) == 1 for j in range(d)], bool)
    want = np.flatnonzero(one_value & (2 * nonzero > n))
    if (2 * nonzero[want] - n).sum() < COMMON_MIN_SHARE * nonzero.sum():  # too few to pay
        want = want[:0]
    assert np.array_equal(listed.common_cols, want)
    b = np.zeros(d, np.float32)
    b[want] = x[:, want].max(0)
    assert np.array_equal(listed.common_vals, b[want])
    diff = x - b
    for i in range(n):
        entries = slice(listed.start[i], listed.start[i] + listed.count[i])
        assert np.array_equal(listed.cols[entries], np.flatnonzero(diff[i]))
        assert np.array_equal(listed.vals[entries], diff[i][diff[i] != 0])
    rows = np.arange(n, dtype=np.int64)
    lists = (listed.start, listed.count, listed.cols, listed.vals)
    common_bias = (bias + listed.common_vals @ w[listed.common_cols]).astype(np.float32)
    out, gw = np.empty((n, 9), np.float32), np.empty((9, d), np.float32)
    sparse_linear(shards(n, threads), rows, *lists, w, common_bias, out)
    bounds, blocks = column_blocks(9, d, threads)
    sparse_weight_grad(bounds, rows, *lists, g, blocks, gw)
    gw[:, listed.common_cols] += listed.common_vals[None, :] * g.sum(0)[:, None]
    x64 = x.astype(np.float64)
    np.testing.assert_allclose(out, x64 @ w + bias, rtol=1e-5, atol=1e-4 * np.sqrt(d))
    np.testing.assert_allclose(gw, g.T.astype(np.float64) @ x64, rtol=1e-5, atol=1e-4 * np.sqrt(n))


def _listed_rows(listed: SparseRows) -> list[tuple[list[int], list[float]]]:
    """Each row's listed entries (columns, values), the spare slots left out."""
    return [
        (
            listed.cols[listed.start[i] : listed.start[i] + listed.count[i]].tolist(),
            listed.vals[listed.start[i] : listed.start[i] + listed.count[i]].tolist(),
        )
        for i in range(listed.shape[0])
    ]


@settings(max_examples=30, deadline=None)
@given(
    sizes=st.lists(st.integers(0, 12), min_size=1, max_size=5),
    d=st.integers(1, 40),
    fill=st.sampled_from([0.0, 0.1, 0.5]),
    common=st.integers(0, 6),
    common_row=st.booleans(),
    threads=st.integers(1, 3),
    seed=st.integers(0, 2**32 - 1),
)
def test_stacked_listings_equal_the_listing_of_the_stacked_rows(
    sizes, d, fill, common, common_row, threads, seed
):
    """The trainer's rollout listing, stacked from its steps' listings, is the listing of
    the whole rollout: the same counts, starts, entries and common row."""
    x, *_ = _case(sum(sizes), d, 1, fill, seed)
    x = _with_common_columns(x, min(common, d), seed, 0.8)
    bounds = np.cumsum([0, *sizes])
    parts = [SparseRows(x[lo:hi], threads) for lo, hi in zip(bounds[:-1], bounds[1:])]
    stacked = SparseRows.stacked(parts, threads, common_row=common_row)
    whole = SparseRows(x, threads, common_row=common_row)
    assert stacked.shape == whole.shape
    assert np.array_equal(stacked.start, whole.start) and np.array_equal(stacked.count, whole.count)
    assert _listed_rows(stacked) == _listed_rows(whole)
    assert np.array_equal(stacked.common_cols, whole.common_cols)
    assert np.array_equal(stacked.common_vals, whole.common_vals)


def test_stacking_refuses_listings_it_cannot_join():
    x, *_ = _case(6, 5, 1, 0.5, 0)
    with pytest.raises(ValueError, match="at least one"):
        SparseRows.stacked([], 1)
    with pytest.raises(ValueError, match="one width"):
        SparseRows.stacked([SparseRows(x, 1), SparseRows(x[:, :4].copy(), 1)], 1)
    x[:, 2] = 0.5  # one value in every row: a common row
    with pytest.raises(ValueError, match="common row"):
        SparseRows.stacked([SparseRows(x, 1, common_row=True)], 1)


@pytest.mark.parametrize(("common", "held"), [(0, 1.0), (12, 1.0), (12, 0.8)])
def test_network_with_the_sparse_layer_matches_the_dense_one(common, held):
    """With ``common`` columns of one value each that every row, or about ``held`` of the
    rows, holds: read through a listing of the differences from the common row (as the
    trainer's update reads its rollouts)."""
    torch = pytest.importorskip("torch")
    from tabletop_core.train.model import Agent, ObservationRows

    torch.manual_seed(0)
    n, d, a = 64, 214, 393
    obs, index = _observations_and_legal_index(np.random.default_rng(0), n, d, a, 0.1, 0.08)
    obs = _with_common_columns(obs, common, 1, held)
    index = torch.from_numpy(index)
    results = []
    for sparse in (False, True):
        torch.manual_seed(1)  # the same weights both times
        agent = Agent(d, a)
        agent.sparse_input = sparse
        x = torch.from_numpy(obs)
        if sparse:
            listed = SparseRows(obs, 2, common_row=True)
            x = ObservationRows(x, torch.arange(n), listed)
        logits, value = agent.legal_forward(x, index)
        (logits.sum() + value.square().sum()).backward()
        results.append((logits.detach(), value.detach(), [p.grad.clone() for p in agent.parameters()]))
        if sparse:
            # the entries read: the differences, and each common column once
            assert len(listed.common_cols) == common
            want = np.count_nonzero(obs - obs.max(0) * np.isin(np.arange(d), listed.common_cols)) + common
            assert agent.input_nonzeros[0] == want
            # stored transposed (the rows the layer reads), its gradient laid out alike
            first = agent.trunk[0].weight
            assert first.shape == (256, d) and first.t().is_contiguous()
            assert first.grad.stride() == first.stride()
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


@pytest.mark.parametrize("fold", [False, True])
@pytest.mark.parametrize("skipped_rows", [False, True])
def test_minibatch_rows_read_in_place_match_the_copied_minibatch(skipped_rows, fold):
    """The update's minibatches read the rollout's listing and its action pieces in place
    (:class:`ObservationRows`): the same logits, values and gradients, to the bit, as the
    minibatch copied out, and every other path (dense first layer) reads the copy. With
    ``skipped_rows`` the samples are some rows of a larger buffer (a rollout whose other
    transitions are not learned from), read through their row ids. With ``fold`` the
    rollout's listing holds the differences from its common row (the trainer's), and the
    sums then differ from the copy's only in their last bits."""
    torch = pytest.importorskip("torch")
    from tabletop_core.train.model import Agent, ObservationRows, piece_values_at

    rng = np.random.default_rng(5)
    m, d, a = 200, 120, 40
    obs, index = _observations_and_legal_index(rng, m, d, a, 0.15, 0.2)
    obs = _with_common_columns(obs, 6, 3, 0.8)
    obs_t, index_t = torch.from_numpy(obs), torch.from_numpy(index)
    rows = torch.from_numpy(rng.integers(0, m, 64))
    inputs = ((10, 30), (50, 12))
    for sparse in (True, False):
        results = []
        for in_place in (False, True):
            torch.manual_seed(2)
            agent = Agent(d, a, action_inputs=inputs)
            with torch.no_grad():
                agent.action_gain.copy_(torch.tensor([0.3, -0.2]))
            agent.sparse_input = sparse
            if in_place and skipped_rows:  # the samples are every other row of `full`
                full = np.repeat(obs, 2, axis=0)
                full[1::2] = _with_common_columns(rng.random((m, d)).astype(np.float32), 6, 3, 0.8)
                full_t, sample_rows = torch.from_numpy(full), torch.arange(0, 2 * m, 2)
                pieces = piece_values_at(full_t, index_t, inputs, sample_rows)
                listed = SparseRows(full, 2, common_row=fold)
                batch = ObservationRows(full_t, sample_rows[rows], listed, pieces, rows)
            elif in_place:
                listed = SparseRows(obs, 2, common_row=fold)
                batch = ObservationRows(obs_t, rows, listed, piece_values_at(obs_t, index_t, inputs))
            else:
                batch = obs_t.index_select(0, rows)
            logits, value = agent.legal_forward(batch, index_t.index_select(0, rows))
            (logits.square().sum() + value.sum()).backward()
            results.append([logits.detach(), value.detach()] + [p.grad.clone() for p in agent.parameters()])
        for x, y in zip(*results):
            if fold and sparse:
                torch.testing.assert_close(y, x, rtol=1e-4, atol=1e-4)
            else:
                assert torch.equal(x, y)


def test_rows_outside_their_batch_get_a_clear_error():
    """The compiled layer reads ObservationRows unchecked: rows past the batch, negative
    rows, rows of the wrong dtype and a listing of another batch are refused before it."""
    torch = pytest.importorskip("torch")
    from tabletop_core.train.model import Agent, ObservationRows

    agent = Agent(8, 5)
    agent.sparse_input = True
    obs = np.eye(4, 8, dtype=np.float32)
    obs_t, listed = torch.from_numpy(obs), SparseRows(obs, 1)
    for rows, match in (
        (torch.tensor([0, 4]), r"0\.\.3"),
        (torch.tensor([-1, 2]), r"0\.\.3"),
        (torch.tensor([0, 1], dtype=torch.int32), "int64"),
        (torch.zeros((2, 1), dtype=torch.int64), "int64"),
    ):
        with pytest.raises(ValueError, match=match):
            agent.legal_forward(
                ObservationRows(obs_t, rows, listed), torch.zeros((len(rows), 1), dtype=torch.int64)
            )
    with pytest.raises(ValueError, match="listing"):
        agent.value_only(ObservationRows(obs_t, torch.tensor([0]), SparseRows(obs[:3], 1)))
    logits, value = agent.legal_forward(
        ObservationRows(obs_t, torch.tensor([3, 0]), listed), torch.zeros((2, 1), dtype=torch.int64)
    )
    assert logits.shape == (2, 1) and value.shape == (2,)
