"""The fast kernels agree with their plain definitions.

- ``rules.shuffle_deck_r`` (the deal's shuffle on the record's generator word) deals
  exactly what ``tabletop_core.kernel.rng.shuffle_prefix`` deals and leaves the same word;
- ``hand_bits`` / ``capt_bits`` stay equal to what ``loc`` says (``rules.sync_bits_r``)
  through random and bot play, and the stored yaku scores equal the reference's;
- the random bot (read from the state) picks exactly what ``sample_legal`` picks from
  the mask with the same generator word, in every phase;
- ``observe_r`` and ``legal_mask_r`` write every entry (they no longer zero the buffer first);
- the observations of fixed-seed vector runs (2..4 seats, actions from Python and from
  the kernel's bots, copies and final observations) hash to what the code wrote before
  the action pieces were reorganised for speed: the same floats, bit for bit;
- the bit helpers against plain Python (``_most_in_window`` on every number word).
"""

from __future__ import annotations

import hashlib
import random

import numba
import numpy as np
import pytest
from helpers import assert_observe_writes_every_entry, deals_against_shuffle_prefix
from koikoi_reference import yaku_of

import koikoi_env
from koikoi_env import bits, bots, observe, rules
from koikoi_env.spec import NUM_ACTIONS, NUM_CARDS, Options
from koikoi_env.state import LOC_CAPTURED, new_state
from tabletop_core.contract import loops
from tabletop_core.kernel.rng import sample_legal, seed_word
from tabletop_core.tools.testing import at


def _bits_of_loc(s, g: int) -> tuple[np.ndarray, np.ndarray]:
    t = s[g : g + 1].copy()
    at(rules.sync_bits_r, t, 0)
    return t["hand_bits"][0], t["capt_bits"][0]


def _assert_consistent(s, g: int, where: str = "") -> None:
    hand, capt = _bits_of_loc(s, g)
    assert np.array_equal(s["hand_bits"][g], hand), where
    assert np.array_equal(s["capt_bits"][g], capt), where
    n = int(s["cfg_players"][g])
    for seat in range(n):
        captured = np.flatnonzero(s["loc"][g] == LOC_CAPTURED + seat).tolist()
        assert at(rules.yaku_score_r, s, g, seat) == yaku_of(captured), where
        assert int(s["yaku"][g, seat]) == yaku_of(captured), where


def test_the_deal_shuffles_exactly_like_tabletop_core_shuffle_prefix():
    for seed in range(300):
        s = new_state(1, Options(num_players=2 + seed % 3))
        s["rng"][0] = seed_word(seed)
        decks = list(deals_against_shuffle_prefix(s, rules.deal_round_r, 0, NUM_CARDS))  # three rounds
        assert len(decks) == 3


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_bit_words_and_yaku_follow_loc_at_every_step(num_players):
    rnd = random.Random(num_players)
    mask = np.zeros(NUM_ACTIONS, np.int8)
    for seed in range(12):
        s = new_state(1, Options(num_players=num_players, rounds=3))
        s["rng"][0] = seed_word(seed)
        at(rules.deal_r, s, 0)
        steps = 0
        while s["status"][0] == 0:
            _assert_consistent(s, 0, f"seed {seed} step {steps}")
            n = at(rules.legal_mask_r, s, 0, mask[None, :], 0)
            legal = np.flatnonzero(mask).tolist()
            assert n == len(legal) > 0
            at(rules.apply_action_r, s, 0, rnd.choice(legal))
            steps += 1
        _assert_consistent(s, 0, f"seed {seed} end")


@pytest.mark.parametrize("bots_", ["random", "greedy,strong,random"])
def test_bit_words_and_yaku_follow_loc_in_bot_games(bots_):
    names = bots_.split(",")
    n = 3
    ids = np.array([bots.BOT_NAMES.index(b) for b in (names * n)[:n]], np.int64)
    games = 300
    s = new_state(games, Options(num_players=n, rounds=2))
    s["rng"] = [seed_word(k) for k in range(games)]
    bot_rng = np.array([seed_word(5000 + k) for k in range(games)], np.uint64)
    loops.play_games(s, ids, bot_rng, np.zeros((games, n)), np.zeros(games, np.int64))
    for g in range(games):
        _assert_consistent(s, g, f"game {g}")


def test_random_bot_picks_what_sample_legal_picks_from_the_mask():
    rnd = random.Random(7)
    mask = np.zeros(NUM_ACTIONS, np.int8)
    phases = set()
    for seed in range(40):
        s = new_state(1, Options(num_players=2 + seed % 3, rounds=2))
        s["rng"][0] = seed_word(seed)
        at(rules.deal_r, s, 0)
        while s["status"][0] == 0:
            at(rules.legal_mask_r, s, 0, mask[None, :], 0)
            phases.add(int(s["phase"][0]))
            a = np.array([seed_word(rnd.getrandbits(64))], np.uint64)
            b = a.copy()
            pick = at(bots.random_bot_r, s, 0, a, 0)
            assert pick == sample_legal(b, 0, mask) and mask[pick] == 1
            assert a[0] == b[0]  # the same draws
            at(rules.apply_action_r, s, 0, pick)
        assert at(bots.random_bot_r, s, 0, np.ones(1, np.uint64), 0) == -1  # game over
    assert phases == {0, 1, 2, 3}


@pytest.mark.parametrize("num_players", [2, 4])
def test_observe_and_legal_mask_write_every_entry(num_players):
    dim = observe.observation_dim(num_players)
    rnd = random.Random(num_players)
    for seed in range(8):
        s = new_state(1, Options(num_players=num_players, rounds=1))
        s["rng"][0] = seed_word(seed)
        at(rules.deal_r, s, 0)
        while True:
            assert_observe_writes_every_entry(observe.observe_r, s, num_players, dim)
            clean_mask = np.zeros(NUM_ACTIONS, np.int8)
            dirty_mask = np.full(NUM_ACTIONS, 7, np.int8)
            assert at(rules.legal_mask_r, s, 0, clean_mask[None, :], 0) == at(
                rules.legal_mask_r, s, 0, dirty_mask[None, :], 0
            )
            assert np.array_equal(clean_mask, dirty_mask)
            if s["status"][0] != 0:  # checked the finished game too (mask all zero)
                assert not clean_mask.any()
                break
            at(rules.apply_action_r, s, 0, rnd.choice(np.flatnonzero(clean_mask).tolist()))


@numba.njit
def _popcount(x):  # the intrinsics only run inside compiled code
    return bits.popcount(x)


@numba.njit
def _lowest_bit(x):
    return bits.lowest_bit(x)


def test_bit_helpers_against_plain_python():
    rnd = random.Random(3)
    for _ in range(2000):
        x = rnd.getrandbits(22)
        assert _popcount(np.int64(x)) == bin(x).count("1")
        text = bin(x)[2:]
        assert bits.longest_run(np.int64(x)) == max((len(r) for r in text.split("0")), default=0)
        ones = [r for r in range(22) if x >> r & 1]
        if ones:
            assert _lowest_bit(np.int64(x)) == ones[0]
            k = rnd.randrange(len(ones))
            assert bits.nth_bit(np.int64(x), k) == ones[k]
            assert rules.suit_bits_yaku(np.int32(x)) == yaku_of(ones)  # suit 0: card = rank


def test_longest_run_table_and_missing_cards_against_plain_python():
    """``rules.LONGEST_RUN_OF`` is ``bits.longest_run`` of every number word, and so is
    the branch-free ``rules.longest_number_run``; ``rules.suit_missing`` counts the cards
    short of each yaku by its definition."""
    words = np.arange(1 << 16)
    text = [bin(int(x))[2:] for x in words]
    assert rules.LONGEST_RUN_OF.tolist() == [max(len(r) for r in t.split("0")) for t in text]
    assert [rules.longest_number_run(int(x)) for x in words] == rules.LONGEST_RUN_OF.tolist()
    rnd = random.Random(4)
    for _ in range(3000):
        x = rnd.getrandbits(22)
        ranks = [r for r in range(22) if x >> r & 1]
        numbers = {r for r in ranks if r < 16}
        non_numbers = len(ranks) - len(numbers)
        most = max(len(numbers & {s, s + 1, s + 2}) for s in range(14))
        want = (max(3 - non_numbers, 0), 3 - most, max(6 - len(ranks), 0))
        assert rules.suit_missing(len(ranks), non_numbers, x & 0xFFFF) == want, ranks


def test_card_rise_against_the_yaku_definitions():
    """``rules.card_rise`` of one card is the difference of ``suit_bits_yaku``,
    ``suit_missing`` and the longest number run before and after the card joins the
    suit word, and ``longest_number_run`` is ``LONGEST_RUN_OF``."""
    rnd = random.Random(5)
    for _ in range(3000):
        w0 = rnd.getrandbits(22)
        rank = rnd.choice([r for r in range(22) if not w0 >> r & 1] or [0])
        if w0 >> rank & 1:
            continue
        w1 = w0 | (1 << rank)

        def figures(w):
            k, n, b = bin(w).count("1"), bin(w >> 16).count("1"), w & 0xFFFF
            return (
                rules.suit_bits_yaku(np.int32(w)),
                rules.suit_missing(k, n, b),
                int(rules.LONGEST_RUN_OF[b]),
            )

        y0, (g0, t0, s0), run0 = figures(w0)
        y1, (g1, t1, s1), run1 = figures(w1)
        want = (y1 - y0, g0 - g1, t0 - t1, s0 - s1, run1 - run0, run1 if rank < 16 else 0)
        assert rules.card_rise(np.int32(w0), rank) == want, (bin(w0), rank)
        assert rules.longest_number_run(w0 & 0xFFFF) == run0


# Computed from the code before the action pieces were reorganised (issue 34): the
# observations must stay the same floats, bit for bit.
OBSERVATIONS_SHA256 = "86f1af0eaecc4872dcfa743c03cde86a636f843a9fc1e0ca98517e74f76a1fb0"


def test_observations_are_the_recorded_floats():
    """Every observation (and final observation) of fixed-seed vector runs with 2, 3 and 4
    seats, steps alternating Python's random actions and the kernel's random bot."""
    h = hashlib.sha256()
    for players in (2, 3, 4):
        venv = koikoi_env.vector_env(64, seed=5, copy=True, num_threads=1, num_players=players)
        obs, _ = venv.reset(seed=5)
        h.update(obs.tobytes())
        for t in range(300):
            obs, _, _, _, info = venv.step_bots("random") if t % 2 else venv.step(venv.sample_actions())
            h.update(obs.tobytes())
            h.update(info["final_observation"].tobytes() if "final_observation" in info else b"")
    assert h.hexdigest() == OBSERVATIONS_SHA256


def test_most_in_window_on_every_number_word():
    """``rules._most_in_window`` (branch-free) is the most numbers held in any three
    consecutive ones, for all 2**16 number words."""
    words = np.arange(1 << 16, dtype=np.int64)
    held = (words[:, None] >> np.arange(16)[None, :]) & 1
    want = np.max(held[:, :-2] + held[:, 1:-1] + held[:, 2:], axis=1)
    got = np.array([rules._most_in_window(int(w)) for w in words])
    assert np.array_equal(got, want)
