"""Differential and random-play tests: the numba kernels against the pure-Python reference.

Games over every option (2-4 players, 1/3/8 rounds, every first dealer) are dealt by
``rules.deal_r`` from a seeded generator; the reference (``koikoi_reference.py``) gets
each round's deck from a copy of the same generator. Actions are drawn from the
reference's legal set with ``random.Random(seed)`` (uniformly, or biased to stop or to
keep declaring koi-koi, so that games reach big multipliers and bankrupt players; or
with the first round's stock cut short, so that rounds also end on an empty deck). At
every step the legal set, the chip changes, the status and the observation of the acting
seat and of another seat must agree. Then thousands of bot games through ``play_games``
check the invariants (chips conserved, never negative, returns = final chips - 25).
"""

from __future__ import annotations

import itertools
import random
from collections import Counter

import numpy as np
import pytest
from koikoi_reference import KOIKOI, STOP, KoikoiReference

from koikoi_env import bots, observe, rules
from koikoi_env.bots import BOT_NAMES
from koikoi_env.game import episode_stats
from koikoi_env.spec import NUM_ACTIONS, NUM_CARDS, Options, Status
from koikoi_env.state import LOC_CAPTURED, LOC_FIELD, LOC_HAND, LOC_OUT, LOC_PENDING, LOC_STOCK, new_state
from tabletop_core.contract import loops
from tabletop_core.kernel.rng import seed_word, shuffle_prefix
from tabletop_core.tools.testing import at

COMBOS = [(n, r, d) for n in (2, 3, 4) for r in (1, 3, 8) for d in range(n)]
GAMES_PER_COMBO = 2  # 27 combos x 4 action styles x 2 games = 216 games


def kernel_and_reference(options: Options, seed: int, short_stock: int | None = None):
    s = new_state(1, options)
    s["rng"][0] = seed_word(seed)
    shadow = np.array([seed_word(seed)], np.uint64)

    def next_deck():
        deck = np.arange(NUM_CARDS, dtype=np.int8)
        shuffle_prefix(shadow, 0, deck, NUM_CARDS)
        return [int(c) for c in deck]

    ref = KoikoiReference(next_deck, options.num_players, options.rounds, options.first_dealer)
    at(rules.deal_r, s, 0)
    if short_stock is not None:  # the first round's stock cut to its top cards; the rest leaves play
        e = s[0]
        pos = int(e["deck_pos"])
        kept = [int(c) for c in e["deck"][pos : pos + short_stock]]
        gone = [int(c) for c in e["deck"][pos + short_stock :]]
        e["deck"][pos:] = gone + kept
        e["deck_pos"] = NUM_CARDS - len(kept)
        for c in gone:
            e["loc"][c] = LOC_OUT
        ref.stock = kept
    return s, ref


def choose(legal: list[int], rnd: random.Random, style: str, ref: KoikoiReference) -> int:
    if style == "short":  # a short first stock: avoid captures so that it runs out
        quiet = [a for a in legal if a < 88 and not ref.field_of_rank(a)]
        return rnd.choice(quiet or legal)
    if KOIKOI in legal:
        if style == "stop":
            return STOP if rnd.random() < 0.9 else KOIKOI
        if style == "koikoi":
            return KOIKOI if rnd.random() < 0.85 else STOP
    return rnd.choice(legal)


def assert_same(s, ref: KoikoiReference, buf, where: str) -> None:
    e = s[0]
    assert int(e["status"]) == ref.status, where
    assert [int(x) for x in e["chips"][: ref.n]] == ref.chips, where
    assert int(e["round"]) == ref.round, where
    assert int(e["dealer"]) == ref.dealer, where
    mask = np.zeros(NUM_ACTIONS, np.int8)
    at(rules.legal_mask_r, s, 0, mask[None, :], 0)
    assert np.flatnonzero(mask).tolist() == ref.legal(), where
    if ref.over:
        seats = [0, ref.n - 1]
    else:
        assert int(e["current"]) == ref.current, where
        seats = [ref.current, (ref.current + 1) % ref.n]
    for seat in seats:
        at(observe.observe_r, s, 0, seat, buf[None, :], 0)
        got = observe.decode_observation(buf, ref.n)
        for name, value in ref.observation(seat).items():
            assert np.array_equal(got[name], np.asarray(value, np.float32)), f"{where} seat {seat} {name}"


@pytest.mark.slow
def test_kernels_agree_with_the_reference_at_every_step():
    stats = Counter()
    styles = ("uniform", "stop", "koikoi", "short")
    for (n, rounds, dealer), style in itertools.product(COMBOS, styles):
        options = Options(num_players=n, rounds=rounds, first_dealer=dealer)
        buf = np.zeros(observe.observation_dim(n), np.float32)
        for g in range(GAMES_PER_COMBO):
            seed = (((n * 100 + rounds) * 10 + dealer) * 10 + styles.index(style)) * 100 + g
            short = (seed % 7) if style == "short" else None
            s, ref = kernel_and_reference(options, seed, short)
            rnd = random.Random(seed)
            assert_same(s, ref, buf, f"{options} seed {seed} start")
            step = 0
            while not ref.over:
                a = choose(ref.legal(), rnd, style, ref)
                stats[f"phase{ref.phase}"] += 1
                round_before = ref.round
                want = ref.step(a)
                at(rules.apply_action_r, s, 0, a)
                got = [int(x) for x in s["delta"][0, :n]]
                where = f"{options} seed {seed} step {step} action {a}"
                assert got == want, where
                assert_same(s, ref, buf, where)
                step += 1
                stats["steps"] += 1
                if a == KOIKOI:
                    stats["koikoi"] += 1
                stats["max_mult"] = max(stats["max_mult"], max(ref.koikoi))
                if ref.round != round_before:
                    stats[f"end{int(s['last_end'][0])}"] += 1
            stats[f"status{ref.status}"] += 1
    # the games covered the interesting ground
    assert stats["status1"] > 0 and stats["status2"] > 0, stats
    assert stats["koikoi"] > 100 and stats["max_mult"] >= 4, stats
    assert all(stats[f"phase{k}"] > 20 for k in range(4)), stats  # every phase visited
    assert all(stats[f"end{k}"] > 0 for k in (1, 2, 3)), stats  # stop, empty hand, empty deck


def _seeded(options: Options, games: int, seed: int):
    s = new_state(games, options)
    s["rng"] = [seed_word(seed + k) for k in range(games)]
    bot_rng = np.array([seed_word(10_000 + seed + k) for k in range(games)], np.uint64)
    return s, bot_rng


@pytest.mark.parametrize("num_players", [2, 3, 4])
@pytest.mark.parametrize("rounds", [1, 8])
def test_random_play_conserves_chips_and_returns_are_final_chips_minus_25(num_players, rounds):
    games = 1500
    options = Options(num_players=num_players, rounds=rounds, first_dealer=rounds % num_players)
    s, bot_rng = _seeded(options, games, 7 * num_players + rounds)
    returns = np.zeros((games, num_players))
    steps = np.zeros(games, np.int64)
    loops.play_games(s, np.zeros(num_players, np.int64), bot_rng, returns, steps)
    chips = s["chips"][:, :num_players].astype(np.int64)
    assert (chips.sum(axis=1) == 25 * num_players).all()
    assert (chips >= 0).all()
    assert np.array_equal(returns, chips - 25)
    assert (s["status"] != 0).all()
    assert ((s["status"] == Status.BANKRUPT) == (chips.min(axis=1) == 0)).all()
    assert (s["round"] <= rounds).all()
    assert ((s["status"] == Status.ROUNDS_DONE) <= (s["round"] == rounds)).all()
    assert (steps >= 1).all() and (steps <= rounds * 240).all()
    # every card is somewhere exactly once, hand sizes agree with the locations
    loc = s["loc"]
    for seat in range(num_players):
        assert np.array_equal((loc == LOC_HAND + seat).sum(axis=1), s["hand_size"][:, seat])
    known = (loc == LOC_STOCK) | (loc == LOC_FIELD) | (loc == LOC_PENDING) | (loc >= LOC_HAND)
    assert known.all()
    assert np.array_equal((loc == LOC_STOCK).sum(axis=1), NUM_CARDS - s["deck_pos"].astype(np.int64))
    # stored yaku equals the yaku of the captured cards
    for g in range(0, games, 97):
        for seat in range(num_players):
            assert s["yaku"][g, seat] == at(rules.yaku_score_r, s, g, seat)
    stats = episode_stats(s)
    assert np.array_equal(stats["top_chips"], chips.max(axis=1))
    assert (loc[:, :] < LOC_CAPTURED + num_players).all()


@pytest.mark.slow
@pytest.mark.parametrize("bots", ["greedy", "strong", "strong,greedy,random,random"])
def test_bot_games_are_legal_and_conserve_chips(bots):
    names = bots.split(",")
    n = len(names) if len(names) > 1 else 3
    ids = np.array([BOT_NAMES.index(b) for b in (names * n)[:n]], np.int64)
    games = 400
    s, bot_rng = _seeded(Options(num_players=n), games, 99)
    returns = np.zeros((games, n))
    steps = np.zeros(games, np.int64)
    loops.play_games(s, ids, bot_rng, returns, steps)  # an illegal bot action would corrupt the game
    chips = s["chips"][:, :n].astype(np.int64)
    assert (chips.sum(axis=1) == 25 * n).all() and (chips >= 0).all()
    assert np.array_equal(returns, chips - 25)


@pytest.mark.slow
def test_bots_only_choose_legal_actions_step_by_step():
    for n, bot in itertools.product((2, 3, 4), (0, 1, 2)):
        s, bot_rng = _seeded(Options(num_players=n, rounds=2), 30, n * 10 + bot)
        mask = np.zeros(NUM_ACTIONS, np.int8)
        for g in range(30):
            at(rules.deal_r, s, g)
            while s["status"][g] == 0:
                at(rules.legal_mask_r, s, g, mask[None, :], 0)
                a = at(bots.bot_action_r, s, g, bot, mask[None, :], 0, bot_rng, g)
                assert mask[a] == 1
                at(rules.apply_action_r, s, g, a)
