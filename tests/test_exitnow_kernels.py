"""The fast paths of Exit Now's kernels against their plain definitions.

* ``rules.is_legal_r`` (no mask) agrees with ``rules.legal_mask_r`` on every action;
* ``rules.random_legal_r`` (no mask) draws exactly what ``sample_legal`` draws on the mask;
* ``observe.refresh_observation_r`` (patches the env's own buffer) leaves exactly what a
  full ``observe_r`` writes, through every event, seat change and autoreset;
* ``loops.play_games`` (the random bot without a mask) plays what the masked bots play;
* the action bit sets (``rules.legal_bits_r``, ``write_mask_row``, ``mask_row_bits``) and
  ``bots.random_bot_row`` agree with the masks and ``sample_legal``;
* large batches step exactly as small ones, and patched final observations are the ended
  episodes' observations written in full (also across set_state).
"""

from __future__ import annotations

import weakref

import numpy as np
import pytest
from exitnow_reference import assert_derived_fields

import exitnow_envs
from exitnow_envs import bots, rules
from exitnow_envs.bots import BOT_IDS, bot_action_r, ghost_sweep_r, random_bot_row
from exitnow_envs.observe import OBS_DIM, STREAM_MIN_BYTES, observe_r, refresh_observation_r
from exitnow_envs.spec import NUM_ACTIONS, Options, Phase
from exitnow_envs.state import new_state
from tabletop_core.contract import loops
from tabletop_core.kernel.jit import kernel
from tabletop_core.kernel.rng import sample_legal, seed_word
from tabletop_core.tools.testing import at

OPTIONS = [
    {},
    {"num_humans": 5, "team": True},
    {"num_humans": 1, "layout": "random", "centre_side": "random", "centre_rotation": "random"},
    {
        "num_humans": 2,
        "layout": "random",
        "centre_side": "random",
        "centre_rotation": "random",
        "max_rounds": 40,
    },
]


@kernel(cache=False)  # (tests are outside the project cache stamp)
def _collect(s, snaps, bot_ids, bot_rng):
    """Play games in env 0 of ``s`` with the bots, copying every decision's State into
    ``snaps`` (dealing again when a game ends)."""
    mask = np.zeros(NUM_ACTIONS, np.int8)
    k = 0
    while k < snaps.shape[0]:
        rules.deal_r(s[0])
        while s[0].status == 0 and k < snaps.shape[0]:
            snaps[k] = s[0]
            k += 1
            rules.legal_mask_r(s[0], mask[None, :], 0)
            rules.apply_action_r(
                s[0], bot_action_r(s[0], bot_ids[s[0].current], mask[None, :], 0, bot_rng, 0)
            )


def decision_snapshots(options: dict, n: int, seed: int) -> np.ndarray:
    """``n`` decision States of random and smart games with these options."""
    o = Options(**options)
    s = new_state(1, o)
    s["rng"][0] = seed_word(seed)
    snaps = new_state(n, o)
    seats = o.num_humans + 1
    half = n // 2
    rng = np.array([seed_word(seed + 1)], np.uint64)
    _collect(s, snaps[:half], np.zeros(seats, np.int64), rng)
    _collect(s, snaps[half:], np.full(seats, BOT_IDS["smart"], np.int64), rng)
    return snaps


@kernel(cache=False)  # (tests are outside the project cache stamp)
def _legality_mismatches(snaps):
    mask = np.zeros(NUM_ACTIONS, np.int8)
    bad = 0
    for i in range(snaps.shape[0]):
        rules.legal_mask_r(snaps[i], mask[None, :], 0)
        for a in range(-2, NUM_ACTIONS + 2):
            want = a >= 0 and a < NUM_ACTIONS and mask[a] != 0
            if rules.is_legal_r(snaps[i], a) != want:
                bad += 1
    return bad


@kernel(cache=False)  # (tests are outside the project cache stamp)
def _draw_mismatches(snaps, words):
    mask = np.zeros(NUM_ACTIONS, np.int8)
    r1 = np.zeros(1, np.uint64)
    r2 = np.zeros(1, np.uint64)
    bad = 0
    for i in range(snaps.shape[0]):
        r1[0] = words[i]
        r2[0] = words[i]
        rules.legal_mask_r(snaps[i], mask[None, :], 0)
        if rules.random_legal_r(snaps[i], r1, 0) != sample_legal(r2, 0, mask) or r1[0] != r2[0]:
            bad += 1
    return bad


@pytest.mark.slow
@pytest.mark.parametrize("options", OPTIONS)
def test_is_legal_and_random_legal_match_the_mask(options):
    snaps = decision_snapshots(options, 3000, 5)
    phases = set(np.unique(snaps["phase"]).tolist())
    assert {int(Phase.MOVE), int(Phase.GHOST), int(Phase.ITEM)} <= phases
    assert _legality_mismatches(snaps) == 0
    words = np.array([seed_word(k) for k in range(snaps.shape[0])], np.uint64)
    assert _draw_mismatches(snaps, words) == 0
    assert_derived_fields(snaps)


def test_random_legal_covers_the_rare_phases():
    """Cross questions and item-chip placements (rare in random play) on built states."""
    snaps = decision_snapshots({"num_humans": 5}, 4000, 9)
    want = {int(Phase.CROSS), int(Phase.CHIP)}
    assert want <= set(np.unique(snaps["phase"]).tolist())
    rare = snaps[np.isin(snaps["phase"], list(want))]
    words = np.array([seed_word(k) for k in range(rare.shape[0])], np.uint64)
    assert _legality_mismatches(rare) == 0 and _draw_mismatches(rare, words) == 0
    over = snaps[:1].copy()
    over["status"] = 2
    assert at(rules.random_legal_r, over, 0, np.zeros(1, np.uint64), 0) == -1


@pytest.mark.parametrize("options", OPTIONS)
def test_patched_observations_equal_full_ones(options):
    """The vector env's buffer (patched in place, copy=False) against full observations
    of every env at every step, through chips taken and put, map swaps, centre
    rotations, sealed doors and autoresets, with every seat acting."""
    venv = exitnow_envs.vector_env(48, seed=11, copy=False, **options)
    obs, info = venv.reset(seed=11)
    full = np.empty(OBS_DIM, np.float32)
    events = {"chip": 0, "map": 0, "reset": 0}
    for t in range(500):
        for i in range(venv.num_envs):
            at(observe_r, venv.state, i, int(info["current_player"][i]), full[None, :], 0)
            assert np.array_equal(obs[i], full), (t, i)
        chipv = venv.state["chipv"].copy()
        mapv = venv.state["mapv"].copy()
        if t % 3 == 0:
            obs, _, term, _, info = venv.step_bots("smart")
        else:
            obs, _, term, _, info = venv.step(venv.sample_actions())
        events["reset"] += int(term.sum())
        events["map"] += int(((venv.state["mapv"] != mapv) & ~term).sum())
        events["chip"] += int(((venv.state["chipv"] != chipv) & ~term).sum())
    assert events["chip"] > 20 and events["map"] > 0 and events["reset"] > 0, events


def test_a_foreign_or_restored_buffer_is_written_in_full():
    s = new_state(1, Options())
    s["rng"][0] = seed_word(3)
    at(rules.deal_r, s, 0)
    mine = np.full(OBS_DIM, 7.0, np.float32)
    notes = exitnow_envs.GAME.new_notes(1)
    at(refresh_observation_r, s, 0, notes[0], 0, mine[None, :], 0, 0)  # first write: in full
    want = np.empty(OBS_DIM, np.float32)
    at(observe_r, s, 0, 0, want[None, :], 0)
    assert np.array_equal(mine, want)
    other = np.full(OBS_DIM, 7.0, np.float32)
    at(refresh_observation_r, s, 0, notes[0], 0, other[None, :], 0, 0)  # another buffer: in full again
    assert np.array_equal(other, want)
    other[:] = 3.0
    notes[0]["addr"][0] = 0  # the note forgotten (as after a restore): in full again
    at(refresh_observation_r, s, 0, notes[0], 0, other[None, :], 0, 0)
    assert np.array_equal(other, want)
    # the AEC env and the vector env rewrite their buffer after set_state
    venv = exitnow_envs.vector_env(4, seed=1, copy=False)
    venv.reset(seed=1)
    saved = venv.get_state()
    for _ in range(20):
        venv.step(venv.sample_actions())
    venv.set_state(saved)
    obs, *_ = venv.step(venv.sample_actions())
    for i in range(4):
        at(observe_r, venv.state, i, int(venv.state["current"][i]), want[None, :], 0)
        assert np.array_equal(obs[i], want)


def test_five_humans_on_one_square_read_four_others_from_every_view():
    """``other_humans`` counts up to 4 (high 4): a human sees at most four others, and the
    ghost player's view of all five humans on one square is capped at 4 instead of
    writing 5/4 = 1.25, outside the observation's ``Box(0, 1)``. The patched row agrees
    with the full one."""
    from exitnow_envs.observe import CH, decode_observation

    s = new_state(1, Options(num_humans=5))
    s["rng"][0] = seed_word(5)
    at(rules.deal_r, s, 0)
    s["hpos"][0, :5] = (10, 10)
    s["entered"][0, :5] = 1
    notes = exitnow_envs.GAME.new_notes(1)
    for seat, own, others in ((5, 0, 4), (0, 1, 4), (3, 1, 4)):
        full = np.empty(OBS_DIM, np.float32)
        at(observe_r, s, 0, seat, full[None, :], 0)
        assert full.min() >= 0 and full.max() <= 1, seat
        planes = decode_observation(full)["planes"]
        assert planes[CH["own_piece"], 10, 10] == own and planes[CH["other_humans"], 10, 10] == others
        patched = np.empty(OBS_DIM, np.float32)
        at(refresh_observation_r, s, 0, notes[0], seat, patched[None, :], 0, 0)
        at(refresh_observation_r, s, 0, notes[0], seat, patched[None, :], 0, 0)  # a patch this time
        assert np.array_equal(patched, full), seat


@kernel(cache=False)  # (tests are outside the project cache stamp)
def _play_with_masks(s, bot_ids, bot_rng, steps):
    """``loops.play_games`` as written with a mask for every bot (the plain definition)."""
    mask = np.zeros(NUM_ACTIONS, np.int8)
    for i in range(s.shape[0]):
        rules.deal_r(s[i])
        n = 0
        while s[i].status == 0:
            rules.legal_mask_r(s[i], mask[None, :], 0)
            rules.apply_action_r(
                s[i], bot_action_r(s[i], bot_ids[s[i].current], mask[None, :], 0, bot_rng, i)
            )
            n += 1
        steps[i] = n


@pytest.mark.parametrize("bots", ["random", "random,smart,random,smart"])
def test_play_games_plays_what_the_masked_bots_play(bots):
    o = Options()
    names = bots.split(",") * (4 // len(bots.split(",")))
    ids = np.array([BOT_IDS[b] for b in names], np.int64)
    games = 60
    fast, plain = new_state(games, o), new_state(games, o)
    fast["rng"] = plain["rng"] = [seed_word(k) for k in range(games)]
    rng_fast = np.array([seed_word(~k) for k in range(games)], np.uint64)
    rng_plain = rng_fast.copy()
    steps_fast, steps_plain = np.zeros(games, np.int64), np.zeros(games, np.int64)
    loops.play_games(fast, ids, rng_fast, np.zeros((games, 4)), steps_fast)
    _play_with_masks(plain, ids, rng_plain, steps_plain)
    assert np.array_equal(steps_fast, steps_plain) and np.array_equal(rng_fast, rng_plain)
    assert np.array_equal(fast, plain)


@kernel(cache=False)  # (tests are outside the project cache stamp)
def _bit_set_mismatches(snaps, words):
    """Per snapshot: the mask from the bit set (written and read back) against
    ``rules.legal_mask_r``, and ``random_bot_row`` against ``sample_legal`` on the mask."""
    masks = np.full((snaps.shape[0], NUM_ACTIONS), 7, np.int8)
    mask = np.zeros(NUM_ACTIONS, np.int8)
    bits = np.zeros(rules.MASK_WORDS, np.uint64)
    back = np.zeros(rules.MASK_WORDS, np.uint64)
    r1 = np.zeros(snaps.shape[0], np.uint64)
    r2 = np.zeros(1, np.uint64)
    bad = 0
    for i in range(snaps.shape[0]):
        n = rules.legal_bits_r(snaps[i], bits)
        rules.write_mask_row(bits, masks, i)
        want = rules.legal_mask_r(snaps[i], mask[None, :], 0)
        for a in range(NUM_ACTIONS):
            bad += masks[i, a] != mask[a]
        bad += n != want
        bad += rules.mask_row_bits(masks, i, back) != n
        for k in range(rules.MASK_WORDS):
            bad += back[k] != bits[k]
        r1[i] = words[i]
        r2[0] = words[i]
        bad += random_bot_row(masks, i, r1, i) != sample_legal(r2, 0, mask)
        bad += r1[i] != r2[0]
    return bad


@pytest.mark.parametrize("options", OPTIONS[:2])
def test_bit_sets_and_the_row_random_bot_match_the_mask(options):
    snaps = decision_snapshots(options, 2000, 7)
    words = np.array([seed_word(100 + k) for k in range(snaps.shape[0])], np.uint64)
    assert _bit_set_mismatches(snaps, words) == 0


def test_large_batches_step_as_small_ones():
    """A batch of 300 envs against the same envs
    in two batches of 150: every output equal."""
    big = exitnow_envs.vector_env(300, seed=21, copy=True)
    small = [exitnow_envs.vector_env(150, seed=21 + 150 * k, copy=True) for k in range(2)]
    big.reset(seed=21)
    for k, v in enumerate(small):
        v.reset(seed=21 + 150 * k)
    ended = 0
    for t in range(400):
        if t % 2 == 0:
            a = big.sample_actions()
            out = big.step(a)
            parts = [v.step(a[150 * k : 150 * (k + 1)]) for k, v in enumerate(small)]
        else:
            out = big.step_bots("random")
            parts = [v.step_bots("random") for v in small]
        for j in range(4):
            assert np.array_equal(out[j], np.concatenate([p[j] for p in parts])), (t, j)
        term = out[2]
        final = np.concatenate([p[4]["final_obs"] for p in parts])
        assert np.array_equal(out[4]["final_obs"][term], final[term]), t
        ended += int(term.sum())
    assert ended > 100
    for name in big.state.dtype.names:
        assert np.array_equal(big.state[name], np.concatenate([v.state[name] for v in small])), name


@kernel
def _observe_all(s, out):
    for i in range(s.shape[0]):
        observe_r(s[i], s[i].current, out, i)


@pytest.mark.slow
def test_copy_true_writes_full_rows_into_recycled_arrays_the_caller_scribbled_on():
    """``copy=True`` steps write every observation row in full into a recycled array (the
    loops' ``FRESH`` mode; at this batch the buffer is large enough for the rows to be
    streamed, ``observe.STREAM_MIN_BYTES``): each observation equals ``observe_r``'s and
    the ``copy=False`` env's, and each final observation the ``copy=False`` env's,
    although the caller writes into every array before dropping it (the pool hands them
    out again)."""
    b = STREAM_MIN_BYTES // (4 * OBS_DIM) + 3
    mine = exitnow_envs.vector_env(b, seed=5, copy=True)
    views = exitnow_envs.vector_env(b, seed=5, copy=False)
    obs, _ = mine.reset()
    assert np.array_equal(obs, views.reset()[0])
    full = np.zeros((b, OBS_DIM), np.float32)
    ended, recycled, seen = 0, 0, []  # seen: weak references to the arrays handed out
    for t in range(240):
        if t % 2:
            out, ref = mine.step_bots("random"), views.step_bots("random")
        else:
            acts = views.sample_actions()
            out, ref = mine.step(acts), views.step(acts)
        _observe_all(mine.state, full)
        assert np.array_equal(out[0], full), t
        assert np.array_equal(out[0], ref[0]), t
        term = ref[2]
        ended += int(term.sum())
        assert np.array_equal(out[4]["final_obs"][term], ref[4]["final_obs"][term]), t
        recycled += any(w() is out[0] for w in seen)  # an earlier step's array, handed out again
        seen.append(weakref.ref(out[0]))
        out[0][::2] = 0.5  # the caller writes into its arrays, then drops them
        out[0][1::2, ::7] = 2.0
        out[4]["final_obs"][:] = 0.25
        del out  # the pool recycles by reference count: no garbage collection needed
    assert recycled > 200, recycled  # the dropped arrays were handed out again
    assert ended > 0


def test_patched_final_observations_are_the_ended_episodes_full_observations():
    """The vector env patches each env's ``final_obs`` row from the previous episode's
    final observation (the State's note 1). Every final observation must equal the
    observation of the ended state written in full from the seat that moved, through many
    episodes per env, and after a ``set_state`` to an earlier point (the note is dropped
    then, as the buffer no longer holds what the restored note says)."""
    venv = exitnow_envs.vector_env(48, seed=7)
    venv.reset(seed=7)
    full = np.zeros(OBS_DIM, np.float32)
    checked, saved = 0, None
    for t in range(1400):
        if t == 500:
            saved = venv.get_state()
        if t == 900:
            venv.set_state(saved)
        before = venv.state.copy()
        if t % 2:
            a = venv.sample_actions()
            out = venv.step(a)
        else:
            out = venv.step_bots("random")
            a = out[4]["actions"]
        for i in np.flatnonzero(out[2]):
            s = before[i : i + 1].copy()
            seat = int(s["current"][0])
            at(rules.apply_action_r, s, 0, int(a[i]))
            assert s["status"][0] != 0
            at(observe_r, s, 0, seat, full[None, :], 0)
            assert np.array_equal(out[4]["final_obs"][i], full), (t, i)
            checked += 1
    assert checked > 48 * 8  # several patched final observations per env


@kernel(cache=False)  # (tests are outside the project cache stamp)
def _sweeps(snaps, starts, max_moves, out):
    """``ghost_sweep_r`` of snapshot ``starts[j, 0]`` from square ``starts[j, 1:]``."""
    for j in range(starts.shape[0]):
        ghost_sweep_r(snaps[starts[j, 0]], starts[j, 1], starts[j, 2], max_moves, out[j])


def _reference_sweep(cell, chip, r0, c0, max_moves):
    """The ghost bot's reach, read slowly: rescan the whole map once per move count, and
    expand every square a ghost can stop on after exactly that many moves (a slide to the
    last free square: 1 move, passing every square on the way; a jump through one wall or
    sealed door onto a free square: 2 moves)."""
    from exitnow_envs.spec import EXIT, MAP, NO_CHIP, SEALED_A, SEALED_C, WALL

    def free(r, c):
        return (
            0 <= r < MAP
            and 0 <= c < MAP
            and cell[r, c] not in (WALL, EXIT)
            and not (SEALED_A <= cell[r, c] <= SEALED_C)
            and chip[r, c] == NO_CHIP
        )

    far = 999
    out = np.full((MAP, MAP), far, np.int64)
    stop = np.full((MAP, MAP), far, np.int64)
    stop[r0, c0] = 0
    for m in range(max_moves):
        for r in range(MAP):
            for c in range(MAP):
                if stop[r, c] != m:
                    continue
                for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
                    rr, cc = r, c
                    while free(rr + dr, cc + dc):
                        rr, cc = rr + dr, cc + dc
                        out[rr, cc] = min(out[rr, cc], m + 1)
                    if (rr, cc) != (r, c):
                        stop[rr, cc] = min(stop[rr, cc], m + 1)
                    r1, c1, r2, c2 = r + dr, c + dc, r + 2 * dr, c + 2 * dc
                    wall = (
                        0 <= r1 < MAP
                        and 0 <= c1 < MAP
                        and (cell[r1, c1] == WALL or SEALED_A <= cell[r1, c1] <= SEALED_C)
                    )
                    if m + 2 <= max_moves and wall and free(r2, c2):
                        out[r2, c2] = min(out[r2, c2], m + 2)
                        stop[r2, c2] = min(stop[r2, c2], m + 2)
    return out


@pytest.mark.parametrize("max_moves", [3, 6])
def test_ghost_sweep_matches_a_map_rescan(max_moves):
    """The bots' ghost reach (a bucket queue) equals the rescan reading on real positions:
    from every ghost on the map and from random squares, over random and smart games with
    random layouts."""
    snaps = decision_snapshots(OPTIONS[2], 120, seed=31)
    rng = np.random.default_rng(max_moves)
    starts = []
    for i in range(len(snaps)):
        for g in np.flatnonzero(snaps[i]["gon"]):
            starts.append((i, *snaps[i]["gpos"][g]))
        starts.append((i, *rng.integers(0, 21, 2)))
    starts = np.array(starts, np.int64)
    out = np.zeros((len(starts), 21, 21), np.int64)
    _sweeps(snaps, starts, max_moves, out)
    for j, (i, r0, c0) in enumerate(starts):
        want = _reference_sweep(snaps[i]["cell"], snaps[i]["chip"], r0, c0, max_moves)
        assert np.array_equal(out[j], want), (i, r0, c0)
    assert (out < 999).sum() > len(starts)  # the ghosts do move


_W = 23  # the bots' padded grids: square (r, c) at (r + 1) * 23 + c + 1


@kernel(cache=False)
def _need_sweeps(snaps, starts, needs, n_need, max_moves, out):
    """The ghost bot's sweep read on ``needs[j, :n_need[j]]`` (padded indices) only."""
    free = np.empty(_W * _W, np.uint8)
    wall = np.empty(_W * _W, np.uint8)
    rows = np.empty(21, np.uint64)
    cols = np.empty(21, np.uint64)
    hit = np.empty(_W * _W, np.uint16)
    at_ = np.empty(_W * _W, np.uint16)
    front = np.empty(_W * _W, np.int16)
    bucket = np.empty(7 * _W * _W, np.int16)
    for j in range(starts.shape[0]):
        e = snaps[starts[j, 0]]
        bots.ghost_grids_r(e, free, wall)
        bots._free_lines_r(free, rows, cols)
        bots._need_bits_r(free, needs[j], n_need[j], hit, at_)
        p0 = (starts[j, 1] + 1) * _W + starts[j, 2] + 1
        bots._sweep_need_r(free, wall, rows, cols, hit, at_, p0, max_moves, front, bucket, n_need[j], out[j])


@pytest.mark.parametrize("max_moves", [1, 3, 6])
def test_ghost_bot_sweep_on_its_squares_matches_the_full_sweep(max_moves):
    """The ghost bot's sweep, which jumps to the slides' ends (read from bit boards), reads
    the squares passed over from bit sets and stops once its squares are known, gives on those squares what
    the full sweep gives: the humans' squares and up to 9 random ones (walls, chips and
    the exit among them), from every ghost and from random squares."""
    snaps = decision_snapshots(OPTIONS[2], 120, seed=37)
    rng = np.random.default_rng(40 + max_moves)
    starts, needs, n_need = [], [], []
    for i in range(len(snaps)):
        froms = [
            (int(snaps[i]["gpos"][g][0]), int(snaps[i]["gpos"][g][1]))
            for g in np.flatnonzero(snaps[i]["gon"])
        ]
        froms.append(tuple(rng.integers(0, 21, 2)))
        for r0, c0 in froms:
            squares = [(int(x[0]), int(x[1])) for x in snaps[i]["hpos"] if x[0] >= 0]
            squares += [
                (int(x[0]), int(x[1]))
                for x in rng.integers(0, 21, (int(rng.integers(0, 10 - len(squares))), 2))
            ]
            row = np.zeros(16, np.int64)
            row[: len(squares)] = [(r + 1) * _W + c + 1 for r, c in squares]
            starts.append((i, r0, c0))
            needs.append(row)
            n_need.append(len(squares))
    starts, needs, n_need = np.array(starts, np.int64), np.array(needs), np.array(n_need, np.int64)
    out = np.zeros((len(starts), 16), np.int16)
    _need_sweeps(snaps, starts, needs, n_need, max_moves, out)
    reached = 0
    for j, (i, r0, c0) in enumerate(starts):
        want = _reference_sweep(snaps[i]["cell"], snaps[i]["chip"], r0, c0, max_moves)
        for k in range(n_need[j]):
            r, c = divmod(int(needs[j, k]), _W)
            assert out[j, k] == want[r - 1, c - 1], (i, r0, c0, r - 1, c - 1)
            reached += want[r - 1, c - 1] < 999
    assert reached > 20  # the squares are reached, not only left far


@kernel(cache=False)
def _bit_distances(snaps, seeds, needs, n_need, out):
    """The human bot's walking distances from ``seeds[j]`` (bit rows) to ``needs[j]``."""
    for j in range(seeds.shape[0]):
        bots._distance_bits_r(snaps[j].wbits, seeds[j], needs[j], n_need[j], out[j])


def _reference_distance(cell, seed, r, c):
    """Walking distance from (r, c) to the nearest seed square, breadth first from the
    seeds over the squares ``rules.human_walkable`` allows (a seed need not be one)."""
    far = 999
    dist = np.full((21, 21), far)
    queue = [tuple(x) for x in np.argwhere(seed)]
    for sr, sc in queue:
        dist[sr, sc] = 0
    for qr, qc in queue:
        for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
            nr, nc = qr + dr, qc + dc
            if 0 <= nr < 21 and 0 <= nc < 21 and dist[nr, nc] == far and rules.human_walkable(cell[nr, nc]):
                dist[nr, nc] = dist[qr, qc] + 1
                queue.append((nr, nc))
    return dist[r, c]


def test_human_bot_distances_over_bit_rows_match_a_breadth_first_search():
    """The human bot's distances, grown over bit rows and stopped once its squares are
    reached, equal a square-by-square breadth-first search: seeds of one to five random
    squares (walls and the exit among them), up to 40 random squares asked."""
    snaps = decision_snapshots(OPTIONS[2], 150, seed=41)
    rng = np.random.default_rng(5)
    seeds = np.zeros((len(snaps), 24), np.uint32)
    grids = np.zeros((len(snaps), 21, 21), bool)
    needs = np.zeros((len(snaps), 40), np.int64)
    n_need = rng.integers(1, 41, len(snaps))
    for j in range(len(snaps)):
        for r, c in rng.integers(0, 21, (int(rng.integers(1, 6)), 2)):
            grids[j, r, c] = True
            seeds[j, r + 1] |= np.uint32(1 << int(c))
        sq = rng.integers(0, 21, (40, 2))
        needs[j] = (sq[:, 0] + 1) * _W + sq[:, 1] + 1
    out = np.zeros((len(snaps), 40), np.int16)
    _bit_distances(snaps, seeds, needs, n_need, out)
    reached = 0
    for j in range(len(snaps)):
        for k in range(n_need[j]):
            r, c = divmod(int(needs[j, k]), _W)
            want = _reference_distance(snaps[j]["cell"], grids[j], r - 1, c - 1)
            assert out[j, k] == want, (j, r - 1, c - 1)
            reached += 0 < want < 999
    assert reached > n_need.sum() // 2
