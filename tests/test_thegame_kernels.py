"""The fast kernels of The Game agree with their plain definitions.

- ``rules.shuffle_deck_r`` (the deal's shuffle on the record's generator word) deals
  exactly what ``tabletop_core.kernel.rng.shuffle_prefix`` deals and leaves the same word;
- the card-set helpers (``pile_accepts``, ``hand_bits_r``) and ``has_play`` against
  ``can_place`` card by card;
- the random bot (read from the state) picks exactly what ``sample_legal`` picks from the
  mask with the same generator word, and the in-kernel random step equals the Python
  step given those actions;
- ``observe_r`` and ``legal_mask_r`` write every entry (they no longer zero the buffer first);
- a play removes the card by moving the last slot into its place (the strong bot's
  search order depends on the slot order).
"""

from __future__ import annotations

import random

import numba
import numpy as np
import pytest
from helpers import assert_observe_writes_every_entry, deals_against_shuffle_prefix

from tabletop_core.contract import loops
from tabletop_core.kernel.rng import sample_legal, sample_legal_batch, seed_word
from tabletop_core.tools.testing import at
from thegame_env import bots, observe, rules, vector_env
from thegame_env.spec import END_TURN, NUM_ACTIONS, NUM_CARDS, Options
from thegame_env.state import new_state

OPTION_SETS = [
    Options(num_players=1),
    Options(num_players=2, on_fire=True),
    Options(num_players=3, level=1),
    Options(num_players=4, on_fire=True, level=2, reward="win"),
    Options(num_players=5, start_player=2),
]


def _games(options: Options, seeds, choose):
    """Yield ``(state, mask)`` at every decision of the dealt games, then apply ``choose``."""
    mask = np.zeros(NUM_ACTIONS, np.int8)
    for seed in seeds:
        s = new_state(1, options)
        s["rng"][0] = seed_word(seed)
        at(rules.deal_r, s, 0)
        while s["status"][0] == 0:
            at(rules.legal_mask_r, s, 0, mask[None, :], 0)
            yield s, mask
            at(rules.apply_action_r, s, 0, choose(mask))
        at(rules.legal_mask_r, s, 0, mask[None, :], 0)
        yield s, mask  # the finished game too


def test_the_deal_shuffles_exactly_like_tabletop_core_shuffle_prefix():
    for seed in range(300):
        s = new_state(1, Options(num_players=1 + seed % 5))
        s["rng"][0] = seed_word(seed)
        for deck in deals_against_shuffle_prefix(s, rules.deal_r, 2, NUM_CARDS):
            h, n = int(s["cfg_hand_size"][0]), int(s["cfg_players"][0])
            for seat in range(5):
                dealt = list(deck[seat * h : (seat + 1) * h]) if seat < n else []
                assert list(s["hand"][0, seat, : len(dealt)]) == dealt
                assert not s["hand"][0, seat, len(dealt) :].any()
                assert s["hand_size"][0, seat] == len(dealt)
            assert s["deck_pos"][0] == n * h


@numba.njit(cache=False)
def _accepts(top, pile):
    lo, hi = rules.pile_accepts(top, pile)
    return lo, hi


@numba.njit(cache=False)
def _hand_bits(s, i, seat):
    return rules.hand_bits_r(s[i], seat)


def _members(lo, hi) -> set[int]:
    return {c for c in range(64) if int(lo) >> c & 1} | {64 + c for c in range(64) if int(hi) >> c & 1}


def test_card_sets_against_can_place():
    for pile in range(4):
        for top in range(1, 101):
            want = {c for c in range(2, 100) if rules.can_place(top, pile, c)}
            got = _members(*_accepts(np.int8(top), pile))
            assert got & set(range(2, 100)) == want, (pile, top)  # other bits: no card


def test_hand_bits_and_has_play_against_the_slots():
    rnd = random.Random(5)
    for s, _ in _games(
        Options(num_players=3, on_fire=True), range(20), lambda m: rnd.choice(np.flatnonzero(m))
    ):
        for seat in range(3):
            n = int(s["hand_size"][0, seat])
            assert _members(*_hand_bits(s, 0, seat)) == set(int(c) for c in s["hand"][0, seat, :n])
        seat = int(s["current"][0])
        cards = s["hand"][0, seat, : s["hand_size"][0, seat]]
        tops = s["piles"][0]
        want = any(rules.can_place(int(tops[p]), p, int(c)) for c in cards for p in range(4))
        assert bool(at(rules.has_play_r, s, 0)) == want


@pytest.mark.parametrize("options", OPTION_SETS, ids=lambda o: f"{o.num_players}p")
def test_random_bot_picks_what_sample_legal_picks_from_the_mask(options):
    rnd = random.Random(options.num_players)
    ends = 0
    for s, mask in _games(options, range(25), lambda m: rnd.choice(np.flatnonzero(m))):
        a = np.array([seed_word(rnd.getrandbits(64))], np.uint64)
        b = a.copy()
        pick = at(bots.random_bot_r, s, 0, a, 0)
        if s["status"][0] != 0:
            assert pick == -1 and a[0] == b[0]  # game over: no draw
            continue
        assert pick == sample_legal(b, 0, mask) and mask[pick] == 1
        assert a[0] == b[0]  # the same draws
        ends += pick == END_TURN
        assert at(bots.bot_action_r, s, 0, bots.BOT_IDS["random"], mask[None, :], 0, b, 0) == sample_legal(
            a, 0, mask
        )
    assert ends > 0


@pytest.mark.parametrize("options", OPTION_SETS[:4], ids=lambda o: f"{o.num_players}p")
def test_in_kernel_random_step_equals_the_python_step_with_the_same_draws(options):
    kw = dict(
        num_players=options.num_players, on_fire=options.on_fire, level=options.level, reward=options.reward
    )
    a = vector_env(16, seed=3, copy=True, **kw)
    b = vector_env(16, seed=3, copy=True, **kw)
    a.reset(seed=3)
    b.reset(seed=3)
    rng = b._bot_rng.copy()
    ended = 0
    for _ in range(150):
        acts = sample_legal_batch(rng, b.action_masks().astype(np.int8), np.zeros(16, np.int64))
        oa, ra, ta, _, ia = a.step_bots("random")
        ob, rb, tb, _, ib = b.step(acts)
        np.testing.assert_array_equal(ia["actions"], acts)
        for x, y in ((oa, ob), (ra, rb), (ta, tb), (ia["action_mask"], ib["action_mask"])):
            np.testing.assert_array_equal(x, y)
        np.testing.assert_array_equal(ia["final_obs"][ta], ib["final_obs"][tb])
        ended += int(ta.sum())
    np.testing.assert_array_equal(a._bot_rng, rng)
    assert ended > 0


def test_random_bot_match_equals_playing_with_sample_legal():
    options = Options(num_players=3, on_fire=True)
    g = 200
    s = new_state(g, options)
    s["rng"] = [seed_word(k) for k in range(g)]
    bot_rng = np.array([seed_word(10**6 + k) for k in range(g)], np.uint64)
    returns = np.zeros((g, 3))
    steps = np.zeros(g, np.int64)
    loops.play_games(s, np.zeros(3, np.int64), bot_rng.copy(), returns, steps)
    t = new_state(g, options)
    t["rng"] = [seed_word(k) for k in range(g)]
    mask = np.zeros(NUM_ACTIONS, np.int8)
    for i in range(g):
        at(rules.deal_r, t, i)
        n, total = 0, 0.0
        while t["status"][i] == 0:
            at(rules.legal_mask_r, t, i, mask[None, :], 0)
            total += at(
                rules.step_reward_r, t, i, at(rules.apply_action_r, t, i, sample_legal(bot_rng, i, mask))
            )
            n += 1
        assert steps[i] == n and returns[i, 0] == total
    assert np.array_equal(s, t)


@pytest.mark.parametrize("options", OPTION_SETS[:3], ids=lambda o: f"{o.num_players}p")
def test_observe_and_legal_mask_write_every_entry(options):
    n = options.num_players
    dim = observe.observation_dim(n)
    rnd = random.Random(n)
    for s, mask in _games(options, range(6), lambda m: rnd.choice(np.flatnonzero(m))):
        assert_observe_writes_every_entry(observe.observe_r, s, n, dim)
        dirty_mask = np.full(NUM_ACTIONS, 7, np.int8)
        assert at(rules.legal_mask_r, s, 0, dirty_mask[None, :], 0) == int(mask.sum())
        assert np.array_equal(mask, dirty_mask)
        # the batch writers too (a row of a garbage-filled (B, n) buffer)
        obs = np.full((3, dim), np.nan, np.float32)
        masks = np.full((3, NUM_ACTIONS), 7, np.int8)
        cur = np.full(3, -1, np.int64)
        clean = np.zeros(dim, np.float32)
        loops.batch_observe(np.concatenate([s, s, s]), np.zeros(3, loops.NO_NOTES), obs, masks, cur)
        at(observe.observe_r, s, 0, int(s["current"][0]), clean[None, :], 0)
        assert np.array_equal(obs, np.stack([clean] * 3)) and np.array_equal(masks, np.stack([mask] * 3))


def test_a_play_moves_the_last_slot_into_the_played_one():
    rnd = random.Random(9)
    plays = 0
    for s, mask in _games(Options(num_players=2), range(10), lambda m: rnd.choice(np.flatnonzero(m))):
        legal = [a for a in np.flatnonzero(mask) if a != END_TURN]
        if not legal:
            continue
        a = rnd.choice(legal)
        t = s.copy()
        seat = int(t["current"][0])
        h = int(t["hand_size"][0, seat])
        hand = list(t["hand"][0, seat, :h])
        k = hand.index(a % NUM_CARDS + 2)
        hand[k] = hand[-1]
        at(rules.apply_action_r, t, 0, a)
        assert list(t["hand"][0, seat, : h - 1]) == hand[:-1]
        assert not t["hand"][0, seat, h - 1 :].any()
        plays += 1
    assert plays > 100
