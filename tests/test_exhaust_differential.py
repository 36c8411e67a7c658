"""Differential tests: the numba kernels against the pure-Python reference.

1. Whole games over every mode and player count: each game is dealt by ``rules.deal_r``
   from a seeded generator and the reference (``exhaust_reference.py``) is built from the
   same deck order (long game: each redeal's deck is handed over). Actions are drawn from
   the reference's legal set with ``random.Random(seed)``; at every step the legal set,
   the rewards, status, loser and the observation of the acting seat and of another seat
   must agree.
2. The brute-force mask check: on many random hands and boards, every legal play is
   enumerated as a subset of the hand; the kernel's selection mask must admit exactly
   the cards that extend the selection towards one of those plays, and the casts that
   are plays themselves.
3. The NPC's choice on random hands and boards against the reference's.
"""

from __future__ import annotations

import random
from itertools import combinations

import numpy as np
import pytest
from exhaust_reference import COPY, ExhaustReference, is_play, npc_choice

from exhaust_env import observe, rules
from exhaust_env.spec import NUM_ACTIONS, Options
from exhaust_env.state import new_state
from tabletop_core.kernel.rng import seed_word
from tabletop_core.tools.testing import at

COMBOS = [
    ("standard", 2),
    ("standard", 3),
    ("standard", 4),
    ("standard", 5, True),
    ("long", 2),
    ("long", 3),
    ("solo", None),
]
GAMES = {"standard": 10, "long": 4, "solo": 20}


def _kernel(options: Options, seed: int) -> np.ndarray:
    s = new_state(1, options)
    s["rng"][0] = seed_word(seed)
    at(rules.deal_r, s, 0)
    return s


def _assert_same(s, ref: ExhaustReference, seats, buf, where: str) -> None:
    e = s[0]
    assert int(e["status"]) == ref.status, where
    assert int(e["loser"]) == ref.loser, where
    if ref.status == 0:
        assert int(e["current"]) == ref.current, where
    for seat in seats:
        at(observe.observe_r, s, 0, seat, buf[None, :], 0)
        got = observe.decode_observation(buf, ref.seats)
        want = ref.observation(seat)
        assert set(got) == set(want)
        for name, value in want.items():
            assert np.array_equal(got[name], np.asarray(value, np.float32)), f"{where} seat {seat} {name}"


def _choose(ref: ExhaustReference, legal: list[int], rnd: random.Random) -> int:
    """Random, but casting half the time when a cast is legal and following the NPC's
    plan a third of the time, so the games reach long selections and late rounds."""
    casts = [a for a in legal if 61 <= a <= 70]
    if casts and rnd.random() < 0.5:
        return rnd.choice(casts)
    if rnd.random() < 0.33:
        choice = npc_choice(ref.hands[ref.current], ref.tops, ref.singles)
        if choice is not None:
            area, cards = choice
            for c in cards:
                if ref.sel.count(c) < cards.count(c) and c in legal:
                    return c
    return rnd.choice(legal)


@pytest.mark.parametrize("combo", COMBOS, ids=lambda c: "-".join(map(str, c)))
def test_kernels_match_the_reference_over_whole_games(combo):
    mode, num_players, zero_sum = (combo + (False,))[:3]
    options = Options(
        num_players=num_players, mode=mode, npc_deck_size=15 + (num_players or 0), zero_sum=zero_sum
    )
    mask = np.zeros(NUM_ACTIONS, np.int8)
    buf = np.zeros(observe.observation_dim(options.seats), np.float32)
    ends = 0
    for g in range(GAMES[mode]):
        seed = 1000 * g + 7
        s = _kernel(options, seed)
        ref = ExhaustReference(
            s["deck"][0],
            num_players=options.players,
            mode=mode,
            npc_deck_size=options.npc_deck_size,
            zero_sum=zero_sum,
            start_player=options.start_player,
        )
        rnd = random.Random(seed)
        _assert_same(s, ref, range(options.seats), buf, f"{mode} seed {seed} deal")
        for step in range(3000):
            where = f"{mode}/{num_players} seed {seed} step {step}"
            n = at(rules.legal_mask_r, s, 0, mask[None, :], 0)
            legal = ref.legal_actions()
            assert np.flatnonzero(mask).tolist() == legal, where
            assert n == len(legal)
            if ref.status:
                ends += 1
                break
            assert legal, where
            a = _choose(ref, legal, rnd)
            seat = ref.current
            at(rules.apply_action_r, s, 0, a)
            got = np.zeros(options.players, np.float32)
            at(rules.write_rewards_r, s, 0, got[None, :], 0)
            want = ref.apply(a, redeal=lambda s=s: s["deck"][0])
            assert got.tolist() == pytest.approx(want), where
            _assert_same(s, ref, {seat, ref.current, (seat + 1) % options.seats}, buf, where)
        else:
            raise AssertionError(f"seed {seed}: game did not end")
    assert ends == GAMES[mode]


# --- brute force ------------------------------------------------------------------------
def all_plays(hand: list[int], tops: list[int], singles: int) -> set[tuple[int, tuple[int, ...]]]:
    """Every legal play (area, sorted kinds) from ``hand`` by enumerating every subset."""
    plays = set()
    idx = range(len(hand))
    for r in range(1, len(hand) + 1):
        for sub in combinations(idx, r):
            cards = tuple(sorted(hand[j] for j in sub))
            for a in range(10):
                if is_play(list(cards), a, tops[a], singles):
                    plays.add((a, cards))
    return plays


def _contains(big: tuple[int, ...], small: list[int]) -> bool:
    return all(big.count(k) >= small.count(k) for k in set(small))


def _random_board(rnd: random.Random) -> list[int]:
    tops = [0] * 10
    for a in range(7):
        tops[a] = rnd.choice([0, 0, rnd.randint(1, 15)])
    for a in (7, 8, 9):
        tops[a] = rnd.choice([0, 0, 3, 4, rnd.randint(3, 9)])
    return tops


def _random_hand(rnd: random.Random, size: int) -> list[int]:
    pool = list(range(60)) + [COPY] * 4
    if rnd.random() < 0.5:  # clumped numbers / colours make sets, straights, flushes
        nums = rnd.sample(range(1, 16), rnd.randint(3, 7))
        cols = rnd.sample(range(4), rnd.randint(1, 4))
        pool = [c * 15 + n - 1 for c in cols for n in nums] + [COPY] * 4
    return sorted(rnd.sample(pool, min(size, len(pool))))


def test_selection_mask_matches_brute_force_enumeration():
    rnd = random.Random(12345)
    out = np.zeros(NUM_ACTIONS, np.int8)
    checked = 0
    for case in range(400):
        singles = rnd.choice([1, 2, 4])
        hand = _random_hand(rnd, rnd.randint(1, 11))
        tops = _random_board(rnd)
        plays = all_plays(hand, tops, singles)
        hand_c = np.zeros(61, np.uint8)
        for k in hand:
            hand_c[k] += 1
        tops_a = np.array(tops, np.int8)
        # selections: the empty one, prefixes of random legal plays, random sub-multisets
        selections = [[]]
        for _area, cards in rnd.sample(sorted(plays), min(6, len(plays))):
            cards = list(cards)
            rnd.shuffle(cards)
            selections.append(cards[: rnd.randint(1, len(cards))])
        for _ in range(4):
            selections.append(rnd.sample(hand, rnd.randint(1, min(4, len(hand)))))
        for sel in selections:
            sel_c = np.zeros(61, np.uint8)
            for k in sel:
                sel_c[k] += 1
            rules.play_mask(hand_c, sel_c, tops_a, singles, out)
            for k in range(61):
                want = hand.count(k) > sel.count(k) and any(_contains(p, sel + [k]) for _, p in plays)
                assert bool(out[k]) == want, (case, hand, tops, singles, sel, k)
            for a in range(10):
                want = bool(sel) and (a, tuple(sorted(sel))) in plays
                assert bool(out[61 + a]) == want, (case, hand, tops, singles, sel, a)
            checked += 1
        # has_play agrees with "some play exists"
        assert bool(rules.has_play(hand_c, tops_a, singles)) == bool(plays)
    assert checked > 2000


def test_npc_choice_matches_the_reference_on_random_hands():
    rnd = random.Random(2024)
    play = np.zeros(61, np.uint8)
    for _ in range(3000):
        singles = rnd.choice([1, 2, 4])
        hand = _random_hand(rnd, rnd.randint(0, 16))
        tops = _random_board(rnd)
        for a in range(4):  # Single areas reach 15 too
            tops[a] = rnd.choice([0, rnd.randint(1, 15), 15])
        hand_c = np.zeros(61, np.uint8)
        for k in hand:
            hand_c[k] += 1
        area = rules.npc_choose(hand_c, np.array(tops, np.int8), singles, play)
        want = npc_choice(hand, tops, singles)
        if want is None:
            assert area == -1, (hand, tops, singles)
            continue
        got = [k for k in range(61) for _ in range(int(play[k]))]
        assert (area, got) == (want[0], sorted(want[1])), (hand, tops, singles)
