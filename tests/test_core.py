"""tabletop_core: the per-env generator, the compiled sampler, observation encoders."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tabletop_core.contract.catalog import available_games, load_game
from tabletop_core.contract.encoders import ObservationLayout
from tabletop_core.kernel.rng import (
    randint,
    random01,
    sample_legal,
    sample_legal_batch,
    seed_word,
    shuffle_prefix,
)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_seed_word_is_deterministic_and_spreads_seeds():
    assert seed_word(5) == seed_word(5)
    words = {int(seed_word(s)) for s in range(1000)}
    assert len(words) == 1000
    assert seed_word(-1) != seed_word(1)
    assert isinstance(seed_word(None), np.uint64)
    for bad in (1.5, "3", True):
        with pytest.raises(ValueError, match="seed must be an int") as info:
            seed_word(bad)
        assert isinstance(info.value, TypeError)  # also what Gymnasium's seeding raises


def test_streams_are_per_env_and_clonable():
    rng = np.array([seed_word(1), seed_word(2)], np.uint64)
    clone = pickle.loads(pickle.dumps(rng.copy()))
    a = [randint(rng, 0, 100) for _ in range(20)]
    b = [randint(clone, 0, 100) for _ in range(20)]
    assert a == b
    assert rng[1] == clone[1]  # stream 1 untouched by draws on stream 0


def test_randint_is_uniform():
    rng = np.array([seed_word(3)], np.uint64)
    n, k = 60000, 6
    counts = np.bincount([randint(rng, 0, k) for _ in range(n)], minlength=k)
    chi2 = ((counts - n / k) ** 2 / (n / k)).sum()
    assert chi2 < 25  # 5 degrees of freedom: p ~ 1e-4
    x = np.array([random01(rng, 0) for _ in range(10000)])
    assert x.min() >= 0 and x.max() < 1 and abs(x.mean() - 0.5) < 0.02


@given(st.integers(0, 2**63), st.integers(1, 60))
@settings(max_examples=50, deadline=None)
def test_shuffle_is_a_permutation(seed, n):
    rng = np.array([seed_word(seed)], np.uint64)
    arr = np.arange(n + 5, dtype=np.int64)
    shuffle_prefix(rng, 0, arr, n)
    assert sorted(arr[:n].tolist()) == list(range(n))
    assert arr[n:].tolist() == list(range(n, n + 5))


def test_sample_legal_only_picks_legal_and_covers_all():
    rng = np.array([seed_word(9)], np.uint64)
    mask = np.zeros(393, np.int8)
    mask[[3, 77, 392]] = 1
    picks = {sample_legal(rng, 0, mask) for _ in range(300)}
    assert picks == {3, 77, 392}
    assert sample_legal(rng, 0, np.zeros(10, np.int8)) == -1
    masks = (np.random.default_rng(0).random((64, 50)) < 0.1).astype(np.int8)
    masks[0] = 0
    out = np.empty(64, np.int64)
    sample_legal_batch(np.array([seed_word(k) for k in range(64)], np.uint64), masks, out)
    assert out[0] == -1
    assert all(masks[i, out[i]] == 1 for i in range(1, 64) if masks[i].any())


def test_observation_layout_decodes_its_pieces():
    layout = ObservationLayout([("a", (3,)), ("b", ()), ("c", (2, 2))])
    assert layout.dim == 8 and layout.offset == {"a": 0, "b": 3, "c": 4}
    v = np.arange(8, dtype=np.float32)
    d = layout.decode(v)
    np.testing.assert_array_equal(d["a"], [0, 1, 2])
    assert d["b"] == 3 and d["c"].shape == (2, 2)
    batched = layout.decode(np.stack([v, v + 1]))
    assert batched["c"].shape == (2, 2, 2) and batched["b"].tolist() == [3, 4]
    with pytest.raises(ValueError, match="last dimension 8"):
        layout.decode(np.zeros(7))
    with pytest.raises(ValueError, match="duplicate"):
        ObservationLayout([("a", (1,)), ("a", (2,))])


def test_game_catalog():
    assert "thegame" in available_games()
    assert load_game("thegame").env_id == "thegame_v1"
    with pytest.raises(ValueError, match="unknown game"):
        load_game("chess")


def test_first_unmasked_finds_the_first_illegal_or_out_of_range_action():
    from tabletop_core.envs.vector import first_unmasked

    masks = np.array([[1, 0, 1], [0, 1, 0], [1, 1, 1]], np.int8)
    assert first_unmasked(masks, np.array([0, 1, 2], np.int64)) == -1
    assert first_unmasked(masks, np.array([0, 0, 2], np.int64)) == 1
    assert first_unmasked(masks, np.array([1, 1, 2], np.int64)) == 0
    assert first_unmasked(masks, np.array([2, 1, 3], np.int64)) == 2
    assert first_unmasked(masks, np.array([2, -1, 0], np.int64)) == 1


@pytest.mark.parametrize("name", ["thegame", "exhaust", "koikoi", "exitnow"])
def test_vector_mask_buffer_agrees_with_the_rules_legality_check(name):
    """The vector env checks actions against its mask buffer; the rules' own check
    (``first_illegal``) must agree with it entry by entry during random play."""
    from tabletop_core.envs.vector import SelfPlayVectorEnv

    game = load_game(name)
    venv = SelfPlayVectorEnv(game, 8, seed=5)
    _, info = venv.reset()
    for _ in range(30):
        mask = info["action_mask"]
        for a in range(0, game.num_actions, max(1, game.num_actions // 40)):
            acts = np.full(8, a, np.int64)
            legal = mask[:, a] != 0
            first = game.first_illegal(venv.state, acts)
            assert first == (-1 if legal.all() else int(np.flatnonzero(~legal)[0]))
        _, _, _, _, info = venv.step(venv.sample_actions())


@pytest.mark.parametrize("name", ["thegame", "exitnow"])
def test_copy_false_buffers_are_read_only_views_the_next_step_overwrites(name):
    """``copy=False`` hands out the env's own buffers read-only: the step trusts the mask
    buffer and Exit Now patches the observation buffer, so a user's write must fail loudly
    (and leave the env stepping exactly as an env nobody touched)."""
    from tabletop_core.envs.vector import SelfPlayVectorEnv

    game = load_game(name)
    shared, fresh = SelfPlayVectorEnv(game, 6, seed=3, copy=False), SelfPlayVectorEnv(game, 6, seed=3)
    obs, info = shared.reset()
    want, _ = fresh.reset()
    for _ in range(25):
        for arr in (obs, info["action_mask"], info["current_player"]):
            assert not arr.flags.writeable
            with pytest.raises(ValueError, match="read-only"):
                arr[0] = 1
        assert np.array_equal(obs, want)
        acts = shared.sample_actions()
        obs2, rew, term, trunc, info = shared.step(acts)
        want, *_ = fresh.step(acts)
        assert obs2 is obs  # the same view, overwritten by the step
        assert not rew.flags.writeable and not term.flags.writeable and not info["final_obs"].flags.writeable
    for f in fresh.state.dtype.names:
        assert np.array_equal(fresh.state[f], shared.state[f]), f


@pytest.mark.slow
@pytest.mark.parametrize("name", available_games())
def test_threaded_vector_env_plays_exactly_as_one_thread(name):
    """``num_threads`` > 1 steps shards of the batch on numba's threads; every env owns its
    rows and generators, so every output (observations, rewards, masks, final
    observations, sampled and bot actions) and the final states must equal one thread's,
    also with more shards than threads and uneven shards (37 envs in 3)."""
    from tabletop_core.envs.vector import SelfPlayVectorEnv

    game = load_game(name)
    one, three = (SelfPlayVectorEnv(game, 37, seed=4, num_threads=t) for t in (1, 3))
    assert (one.num_threads, three.num_threads) == (1, 3)
    outs = [v.reset(seed=4) for v in (one, three)]
    assert np.array_equal(outs[0][0], outs[1][0])
    ended = 0
    for k in range(240):
        if k % 2:
            a = [v.sample_actions() for v in (one, three)]
            assert np.array_equal(a[0], a[1]), k
            r = [v.step(x) for v, x in zip((one, three), a)]
        else:
            r = [v.step_bots("random") for v in (one, three)]
            assert np.array_equal(r[0][4]["actions"], r[1][4]["actions"]), k
        for x, y in zip(r[0][:4], r[1][:4]):
            assert np.array_equal(x, y), k
        term = r[0][2]
        assert np.array_equal(r[0][4]["final_obs"][term], r[1][4]["final_obs"][term]), k
        assert np.array_equal(r[0][4]["action_mask"], r[1][4]["action_mask"]), k
        ended += int(term.sum())
    assert ended > 0
    for f in one.state.dtype.names:
        assert np.array_equal(one.state[f], three.state[f]), f


def test_num_threads_is_validated_and_defaults_by_batch_size():
    from tabletop_core.envs.vector import MIN_ENVS_PER_THREAD, SelfPlayVectorEnv, available_cores

    game = load_game("thegame")
    for bad in (0, -1, 2.0, True, "2", 9):
        with pytest.raises(ValueError, match="num_threads"):
            SelfPlayVectorEnv(game, 8, num_threads=bad)
    assert SelfPlayVectorEnv(game, MIN_ENVS_PER_THREAD - 1).num_threads == 1
    big = SelfPlayVectorEnv(game, 2 * MIN_ENVS_PER_THREAD)
    assert big.num_threads == min(2, available_cores(), numba_threads())
    assert SelfPlayVectorEnv(game, 8, num_threads=8).num_threads == 8


def numba_threads() -> int:
    import numba

    return numba.config.NUMBA_NUM_THREADS


def test_bit_intrinsics_match_python():
    from numba import njit

    from tabletop_core.kernel.bits import bit_length, ctlz, ctz, popcount, stack_u32

    @njit
    def run(x):
        u = np.uint64(x)
        buf = stack_u32(4)
        for k in range(4):
            buf[k] = np.uint32(k + 1)
        return popcount(u), ctz(u), ctlz(u), bit_length(u), buf.sum(), popcount(np.int64(x))

    rng = np.random.default_rng(0)
    for x in [0, 1, 2, 3, 1 << 63, (1 << 64) - 1, *rng.integers(0, 1 << 62, 50)]:
        x = int(x)
        pc, tz, lz, bl, total, pc_signed = run(np.uint64(x))
        assert pc == pc_signed == bin(x).count("1")
        assert tz == (64 if x == 0 else (x & -x).bit_length() - 1)
        assert lz == 64 - x.bit_length() and bl == x.bit_length()
        assert total == 10


def test_nth_set_bit_is_the_kth_lowest_set_bit_of_any_word():
    """The branch-free search against a plain scan: every k of random 64-bit words, the
    top bit, signed and unsigned words, and one-bit words."""
    from numba import njit

    from tabletop_core.kernel.bits import nth_set_bit

    @njit
    def run(x, k):
        return nth_set_bit(x, k)

    rs = np.random.default_rng(3)
    words = [int(w) for w in rs.integers(0, 2**63, 40, dtype=np.uint64)] + [2**64 - 1, 2**63, 1, 0x80000001]
    words += [int(w) & int(m) for w, m in zip(rs.integers(0, 2**63, 20, dtype=np.uint64), [0xF0F0] * 20)]
    for x in words:
        if x == 0:
            continue
        ones = [j for j in range(64) if x >> j & 1]
        assert [run(np.uint64(x), k) for k in range(len(ones))] == ones
        if x < 2**31:  # a signed word (a card set) reads the same
            assert [run(np.int32(x), k) for k in range(len(ones))] == ones


def test_narrow_words_stack_u64_and_prefetch():
    from numba import njit

    from tabletop_core.kernel.bits import ctz, popcount, prefetch, prefetch_row, stack_u64

    @njit
    def run(x32, x64, arr):
        a = stack_u64(5)
        for j in range(5):
            a[j] = x64 >> np.uint64(j + 20)
        t = 0
        for j in range(5):
            t += popcount(a[j])
        prefetch(arr, 0)
        prefetch(arr, 4096)  # a hint: past the end is harmless
        prefetch_row(arr, 1)
        prefetch_row(arr, 1000)
        return popcount(x32), popcount(x64), ctz(x32), ctz(x64), t

    arr = np.arange(4, dtype=np.int64)
    for x in (1, 6, 0x80000000, 0xFFFFFFFF, 0x12345678):
        got = run(np.uint32(x), np.uint64(x) << np.uint64(20), arr)
        low = (x & -x).bit_length() - 1
        assert got[:4] == (bin(x).count("1"), bin(x).count("1"), low, low + 20)
        assert got[4] == sum(bin(x >> j).count("1") for j in range(5))
    assert run(np.uint32(0), np.uint64(0), arr)[2:4] == (32, 64)
    assert arr.tolist() == [0, 1, 2, 3]


def test_unowned_views_read_and_write_the_callers_array():
    """``unowned(arr)`` is the same memory, shape and strides without an owner reference:
    writes through it land in the caller's array, rows and slices of it read right."""
    from numba import njit

    from tabletop_core.kernel.bits import unowned

    @njit
    def fill(a, b):
        v = unowned(a)
        w = unowned(b)
        for i in range(v.shape[0]):
            for j in range(v.shape[1]):
                v[i, j] = i * 10 + j
        w[1:3] = v[2, 1:3]
        return v.shape[0] * 1000 + v.strides[0] + v[3].sum()

    a = np.zeros((4, 3), np.float32)
    b = np.zeros(5, np.int64)
    got = fill(a, b)
    assert a.tolist() == [[10 * i + j for j in range(3)] for i in range(4)]
    assert b.tolist() == [0, 21, 22, 0, 0]
    assert got == 4000 + 12 + 93


@pytest.mark.parametrize("dtype", [np.float32, np.int8, np.float64])
@pytest.mark.parametrize("width", [1, 7, 8, 9, 33, 100, 1027])
def test_stream_row_copies_exactly_one_row_at_any_alignment(dtype, width):
    """``stream_row`` (non-temporal stores in the row's 32-byte aligned middle, ordinary
    stores at its ends) writes exactly the destination row, whatever the row's alignment
    and length, and leaves every other byte alone."""
    from tabletop_core.kernel.bits import stack_f32, stream_row
    from tabletop_core.kernel.jit import kernel

    size = np.dtype(dtype).itemsize
    rng = np.random.default_rng(width)
    for shift in range(0, 33, size):  # rows starting at every offset from a 32-byte boundary
        raw = np.zeros(5 * (width + 9) * size + 64, np.uint8)
        start = (-raw.ctypes.data) % 32 + shift
        dst = raw[start : start + 5 * (width + 9) * size].view(dtype).reshape(5, width + 9)[:, :width]
        src = (rng.integers(1, 100, (3, width))).astype(dtype)
        before = raw.copy()
        stream_row(src, 2, dst, 3)
        want = before.copy()
        want[start : start + 5 * (width + 9) * size].view(dtype).reshape(5, width + 9)[3, :width] = src[2]
        assert np.array_equal(raw, want), shift

    @kernel
    def via_stack(src, dst):
        scratch = stack_f32(1027).reshape((1, 1027))
        for j in range(1027):
            scratch[0, j] = src[j]
        stream_row(scratch, 0, dst, 1)

    src = rng.random(1027).astype(np.float32)
    dst = np.zeros((3, 1027), np.float32)
    via_stack(src, dst)
    assert np.array_equal(dst[1], src) and not dst[0].any() and not dst[2].any()


def test_word_functions_draw_what_the_array_functions_draw():
    from tabletop_core.kernel.rng import next_u64, next_word, randint_word, shuffle_word

    rng = np.array([seed_word(7)], np.uint64)
    w = rng[0]
    for n in (1, 2, 7, 100):
        w, a = randint_word(w, n)
        assert a == randint(rng, 0, n) and w == rng[0]
    w, z = next_word(w)
    assert z == next_u64(rng, 0) and w == rng[0]
    a = np.arange(40, dtype=np.int64)
    b = a.copy()
    w = shuffle_word(w, a, 40)
    shuffle_prefix(rng, 0, b, 40)
    np.testing.assert_array_equal(a, b)
    assert w == rng[0]


def test_sample_legal_picks_the_kth_nonzero_entry_for_every_length():
    """The 64-at-a-time bit scan picks exactly what a plain scan picks (the k-th nonzero
    entry for k = randint(count)), across block boundaries and tails."""
    rs = np.random.default_rng(1)
    for t in range(1500):
        n = int(rs.integers(1, 300))
        mask = (rs.random(n) < rs.random() * 0.4).astype(np.int8)
        rng = np.array([seed_word(t)], np.uint64)
        twin = rng.copy()
        got = sample_legal(rng, 0, mask)
        legal = np.flatnonzero(mask)
        expected = -1 if len(legal) == 0 else legal[randint(twin, 0, len(legal))]
        assert got == expected and rng[0] == twin[0]


def test_regions_lay_out_consecutive_offsets():
    from tabletop_core.kernel.layout import regions

    w = regions(("a", 3), ("b", 0), ("c", 5))
    assert w.offsets() == (0, 3, 3) and w.size == 8 and w.length["c"] == 5
    with pytest.raises(ValueError, match="duplicate"):
        regions(("a", 1), ("a", 2))
    with pytest.raises(ValueError, match="non-negative int"):
        regions(("a", -1))


# --- the bit-set <-> mask-row helper (tabletop_core.kernel.bits) ------------------------------------
def _bits_kernels():
    from numba import njit

    from tabletop_core.kernel.bits import read_bits_row, write_bits_row

    @njit
    def write(bits, out, row, n):
        write_bits_row(bits, out, row, n)

    @njit
    def read(masks, row, n, bits):
        return read_bits_row(masks, row, n, bits)

    return write, read


_WRITE_BITS, _READ_BITS = _bits_kernels()


@settings(max_examples=60, deadline=None)
@given(n=st.integers(8, 200), seed=st.integers(0, 2**32 - 1), contiguous=st.booleans())
def test_write_and_read_bits_row_match_a_loop(n, seed, contiguous):
    """Every entry of the row equals its bit, nothing outside ``0 .. n - 1`` is touched, and
    reading the row back gives the bit set and its count: the vector paths (C-contiguous
    int8) and the entry-by-entry ones (a strided view) alike."""
    rs = np.random.default_rng(seed)
    words = (n + 63) // 64
    bits = rs.integers(0, 2**63, size=words, dtype=np.uint64) | (
        rs.integers(0, 2, size=words, dtype=np.uint64) << np.uint64(63)
    )
    last = n - 64 * (words - 1)  # bits past entry n - 1 must not matter
    if last < 64:
        bits[-1] &= np.uint64((1 << last) - 1)
    expect = np.array([(int(bits[a >> 6]) >> (a & 63)) & 1 for a in range(n)], np.int8)
    base = np.full((3, n + 9), 7, np.int8)
    out = base if contiguous else np.full((3, 2 * (n + 9)), 7, np.int8)[:, ::2]
    _WRITE_BITS(bits, out, 1, n)
    np.testing.assert_array_equal(out[1, :n], expect)
    assert (out[1, n:] == 7).all() and (out[0] == 7).all() and (out[2] == 7).all()
    back = np.zeros(words, np.uint64)
    assert _READ_BITS(out, 1, n, back) == int(expect.sum())
    np.testing.assert_array_equal(back, bits)


def test_kernels_compile_one_version_per_argument_type():
    """``tabletop_core.kernel.jit.kernel``: calls with different integer constants and widths
    share one compiled version (numba alone makes one per constant and per width);
    ``constant_ints=True`` keeps a version per constant; results are the same."""
    from tabletop_core.kernel.jit import kernel

    @kernel(cache=False)
    def plain(x, k):
        return x * 2 + k

    @kernel(cache=False, constant_ints=True)
    def folded(x, k):
        return x * 2 + k

    @kernel(cache=False)
    def caller(x):
        return plain(x, 1) + plain(x, 2) + plain(np.int8(x), np.int16(3)) + folded(x, 1) + folded(x, 2)

    assert caller(5) == (11 + 12 + 13) + (11 + 12)
    assert len(plain.signatures) == 1, plain.signatures
    assert len(folded.signatures) == 2, folded.signatures


def test_callees_are_compiled_for_linking_only():
    """A kernel only other kernels call gets no machine code of its own (the caller
    optimises the call tree once: ``tabletop_core.kernel.jit._compile_for_linking``); results and
    exceptions go through unchanged, and called from Python later it is compiled to
    machine code and returns the same."""
    from numba.core import types

    from tabletop_core.kernel.jit import LinkOnly, kernel

    @kernel(cache=False)
    def leaf(x):
        if x < 0:
            raise ValueError("negative")
        return x * 3

    @kernel(cache=False)
    def mid(x):
        return leaf(x) + 1

    @kernel(cache=False)
    def top(x):
        return mid(x) * 2

    assert top(2) == 14
    for callee in (mid, leaf):
        (cres,) = callee.overloads.values()
        assert isinstance(cres.entry_point, LinkOnly), callee
    with pytest.raises(ValueError, match="negative"):
        top(-1)
    assert leaf(4) == 12 and mid(4) == 13
    assert not isinstance(leaf.overloads[(types.int64,)].entry_point, LinkOnly)

    @kernel(cache=False)
    def later(x):  # links the machine-code version now
        return leaf(x) - 1

    assert later(5) == 14


_CACHED_KERNELS = """
from tabletop_core.kernel.jit import kernel

@kernel
def leaf(x):
    return x * 3

@kernel
def top(x):
    return leaf(x) + 1
"""


def test_linked_callees_stay_out_of_the_cache(tmp_path):
    """The kernel called from Python is cached with its callees' code in it: a second
    process loads it and compiles nothing, and no callee has a cache entry of its own."""
    (tmp_path / "cached_kernels.py").write_text(_CACHED_KERNELS)
    script = (
        "import cached_kernels as m\n"
        "assert m.top(4) == 13\n"
        "print(sum(m.top.stats.cache_hits.values()), len(m.leaf.signatures))\n"
    )
    env = {
        **os.environ,
        "NUMBA_CACHE_DIR": str(tmp_path / "cache"),
        "PYTHONPATH": os.pathsep.join([str(tmp_path), ROOT]),
    }
    runs = [
        subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True)
        for _ in range(2)
    ]
    assert runs[0].stdout.split() == ["0", "1"], runs[0].stderr  # compiled: leaf for linking
    assert runs[1].stdout.split() == ["1", "0"], runs[1].stderr  # loaded: leaf never needed
    indexes = sorted(p.name for p in (tmp_path / "cache").rglob("*.nbi"))
    assert len(indexes) == 1 and "top" in indexes[0], indexes


def test_kernels_keep_unsigned_widths():
    """Unsigned arguments keep their width (bit sets): ``~x`` of a uint32 is 32 bits."""
    from tabletop_core.kernel.jit import kernel

    @kernel(cache=False)
    def invert(x):
        return ~x

    @kernel(cache=False)
    def caller(x):
        return invert(np.uint32(x))

    assert caller(0) == 0xFFFFFFFF


def test_the_catalog_lists_the_games_from_entry_points():
    """The four games come from the ``tabletop_rl.games`` entry points, and an unknown game
    names the listed ones."""
    from importlib.metadata import entry_points

    from tabletop_core.contract.catalog import game_names, load_game

    listed = {ep.name for ep in entry_points(group="tabletop_rl.games")}
    assert {"thegame", "exhaust", "koikoi", "exitnow"} <= listed <= set(game_names())
    with pytest.raises(ValueError, match="thegame"):
        load_game("chess")


def test_ctrl_c_during_a_compilation_is_held_until_it_ends():
    """numba swallows an interrupt in the middle of a compilation (or turns it into a
    RuntimeError while writing its cache): a kernel's compilation holds SIGINT and raises
    KeyboardInterrupt once it is over, from the outermost compilation only."""
    import os
    import signal

    from tabletop_core.kernel.jit import _sigint_held

    # Python's own handler, as in a program started from a terminal (a background job
    # inherits SIGINT ignored); put back whatever was there at the end
    outer = signal.signal(signal.SIGINT, signal.default_int_handler)
    seen = []
    try:
        with pytest.raises(KeyboardInterrupt), _sigint_held():
            with _sigint_held():  # a callee compiled inside: holds nothing of its own
                os.kill(os.getpid(), signal.SIGINT)
                seen.append("inner ran on")
            seen.append("outer ran on")
        assert seen == ["inner ran on", "outer ran on"]
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
        with _sigint_held():  # no interrupt: nothing raised
            pass
        signal.signal(signal.SIGINT, lambda signum, frame: seen.append("own handler"))
        with _sigint_held():  # a program's own handler is left in place
            os.kill(os.getpid(), signal.SIGINT)
        assert seen[-1] == "own handler"
    finally:
        signal.signal(signal.SIGINT, outer)
