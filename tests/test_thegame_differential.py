"""Differential test: the numba kernels against the pure-Python reference.

Thousands of games over every option combination (1-5 players, On Fire on/off, levels
0/1/2, both reward modes). Each game is dealt by ``rules.deal_r`` from a seeded generator;
the reference (``thegame_reference.py``) is built from the same deck order. Actions are
drawn from the reference's legal set with ``random.Random(seed)`` (uniformly, or by a
noisy greedy player so that games also reach the late game: empty draw pile, skipped
seats, perfect games). At every step the legal set, the reward, the state summary and
the observation of the acting seat (and of one other seat) must agree.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter

import numpy as np
import pytest
from thegame_reference import END_TURN, FIRE, TheGameReference, action_play

from tabletop_core.kernel.rng import seed_word
from tabletop_core.tools.testing import at
from thegame_env import observe, rules
from thegame_env.spec import MAX_EPISODE_STEPS, NUM_ACTIONS, Options, Status
from thegame_env.state import new_state

PLAYER_COUNTS = (1, 2, 3, 4, 5)
COMBOS = list(itertools.product(PLAYER_COUNTS, (False, True), (0, 1, 2), ("cards", "win")))
GAMES_PER_COMBO = 40  # 60 combos -> 2400 dealt games
NEAR_SORTED_GAMES = 150


# --- building both sides ----------------------------------------------------------------
def _options(num_players, on_fire, level, reward, start_player=0):
    return Options(
        num_players=num_players, on_fire=on_fire, level=level, reward=reward, start_player=start_player
    )


def dealt_kernel_state(options: Options, seed: int) -> np.ndarray:
    s = new_state(1, options)
    s["rng"][0] = seed_word(seed)
    at(rules.deal_r, s, 0)
    return s


def reference_for(state: np.ndarray, options: Options) -> TheGameReference:
    """The reference game with the kernel state's deck order and options."""
    ref = TheGameReference(
        [int(c) for c in state["deck"][0]],
        num_players=options.num_players,
        on_fire=options.on_fire,
        level=options.level,
        reward=options.reward,
        start_player=options.start_player,
    )
    for seat in range(options.num_players):
        n = int(state["hand_size"][0, seat])
        assert sorted(int(c) for c in state["hand"][0, seat, :n]) == sorted(ref.hands[seat])
    assert int(state["deck_pos"][0]) == 98 - len(ref.draw_pile)
    return ref


def deal_from_deck(options: Options, deck) -> np.ndarray:
    """A kernel state dealt from ``deck`` (not shuffled), seat by seat like ``rules.deal_r``."""
    s = dealt_kernel_state(options, 0)
    e = s[0]
    e["deck"][:] = deck
    h = options.hand_size
    e["hand"][:] = 0
    for seat in range(options.num_players):
        e["hand"][seat, :h] = deck[seat * h : (seat + 1) * h]
        e["hand_size"][seat] = h
    e["deck_pos"] = h * options.num_players
    return s


# --- choosing actions -------------------------------------------------------------------
def choose(ref: TheGameReference, legal: list[int], rnd: random.Random, greedy: bool) -> int:
    """Uniform over ``legal``; or (greedy) mostly the smallest jump, stopping at the minimum."""
    if not greedy or rnd.random() < 0.03:
        return rnd.choice(legal)
    best, best_cost = END_TURN, None
    for a in legal:
        if a == END_TURN:
            continue
        pile, card = action_play(a)
        top = ref.piles[pile]
        cost = card - top if pile < 2 else top - card
        if ref.fire_placed[pile] is not None and card not in FIRE:
            cost -= 30  # cover a burning pile first
        if best_cost is None or cost < best_cost:
            best, best_cost = a, cost
    if END_TURN in legal and (best_cost is None or best_cost > rnd.choice((1, 2, 3))):
        return END_TURN
    return best


# --- comparing --------------------------------------------------------------------------
def flat_observation(ref: TheGameReference, seat: int) -> list:
    """The reference pieces of ``seat`` laid out in the observation layout's order."""
    pieces = ref.observation(seat)
    flat = []
    layout = observe.observation_layout(ref.num_players)
    for name, *_ in layout.pieces:  # game units times the layout's float32 scale
        flat.extend((np.asarray(pieces[name], np.float32).reshape(-1) * layout.scale[name]).tolist())
    return flat


def assert_same_observation(
    state, ref: TheGameReference, seat: int, obs_buf, where: str, decode: bool
) -> None:
    at(observe.observe_r, state, 0, seat, obs_buf[None, :], 0)
    if not decode and obs_buf.tolist() == flat_observation(ref, seat):
        return  # fast path: the flat vectors agree, hence every decoded piece does
    got = observe.decode_observation(obs_buf, ref.num_players)
    want = ref.observation(seat)
    assert set(got) == set(want), where
    for name, value in want.items():
        assert np.array_equal(got[name], np.asarray(value, np.float32)), f"{where} seat {seat} {name}"


def assert_same(state, ref: TheGameReference, views, obs_buf, where: str, decode: bool = False) -> None:
    """Kernel state == reference state, and the observations of ``views`` agree (piece by
    piece through ``decode_observation`` when ``decode`` or when the vectors differ)."""
    e = state[0]
    assert int(e["status"]) == ref.status, where
    assert int(at(rules.score_r, state, 0)) == ref.score(), where
    assert int(e["current"]) == ref.current, where
    assert int(e["plays_this_turn"]) == ref.plays_this_turn, where
    assert e["piles"].tolist() == ref.piles, where
    assert int(e["turn"]) == ref.turn, where
    hands, sizes = e["hand"].tolist(), e["hand_size"].tolist()
    for seat in range(ref.num_players):
        assert sorted(hands[seat][: sizes[seat]]) == sorted(ref.hands[seat]), f"{where} hand {seat}"
    assert e["deck"].tolist()[int(e["deck_pos"]) :] == ref.draw_pile, where
    for seat in views:
        assert_same_observation(state, ref, seat, obs_buf, where, decode)


def play_differential(
    state, ref: TheGameReference, seed: int, greedy: bool, stats: Counter, label: str = ""
) -> None:
    rnd = random.Random(seed)
    mask = np.zeros(NUM_ACTIONS, np.int8)
    obs_buf = np.zeros(observe.observation_dim(ref.num_players), np.float32)
    p = ref.num_players
    assert_same(state, ref, range(p), obs_buf, f"{label} seed {seed} deal", decode=True)
    total = 0.0
    for step in range(MAX_EPISODE_STEPS + 1):
        where = f"{label} seed {seed} step {step}"
        n = at(rules.legal_mask_r, state, 0, mask[None, :], 0)
        legal = ref.legal_actions()
        assert np.flatnonzero(mask).tolist() == legal, where
        assert n == len(legal), where
        if ref.done():
            break
        assert legal, where  # never a live game without a legal action
        action = choose(ref, legal, rnd, greedy)
        seat = ref.current
        assert at(rules.is_legal_r, state, 0, action), where
        if ref.draw_pile == [] and any(not h for h in ref.hands):
            stats["empty hand seen"] += 1
        placed = at(rules.apply_action_r, state, 0, action)
        got_reward = float(at(rules.step_reward_r, state, 0, placed))
        want_reward = ref.apply(action)
        assert got_reward == want_reward, where
        total += want_reward
        views = {seat, ref.current, (seat + 1 + step) % p}
        assert_same(state, ref, views, obs_buf, where, decode=ref.done())
        if action == END_TURN and not ref.done() and ref.current != (seat + 1) % p:
            stats["seat skipped"] += 1
    else:
        raise AssertionError(f"seed {seed}: game did not end within MAX_EPISODE_STEPS")
    if ref.reward_mode == "cards":
        assert total == 98 - ref.score()  # the return of a full game
    else:
        assert total == (1.0 if ref.is_win() else -1.0)
    stats[Status(ref.status).name] += 1
    if ref.is_win():
        stats["win"] += 1


@pytest.mark.slow
@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_dealt_games_match_reference(num_players):
    stats = Counter()
    for combo, (_, on_fire, level, reward) in enumerate(c for c in COMBOS if c[0] == num_players):
        for g in range(GAMES_PER_COMBO):
            seed = 1_000_000 * num_players + 1000 * combo + g
            options = _options(num_players, on_fire, level, reward, start_player=g % num_players)
            state = dealt_kernel_state(options, seed)
            ref = reference_for(state, options)
            play_differential(state, ref, seed, greedy=g % 2 == 1, stats=stats, label=repr(options))
    assert stats["STUCK"] > 0, stats
    assert stats["FIRE_LOSS"] > 0, stats


@pytest.mark.slow
def test_near_sorted_decks_reach_the_late_game():
    """Decks that are sorted up to a few swaps: perfect games, skipped seats, empty hands."""
    stats = Counter()
    for g in range(NEAR_SORTED_GAMES):
        rnd = random.Random(7_000_000 + g)
        num_players, on_fire, level, reward = COMBOS[g % len(COMBOS)]
        options = _options(num_players, on_fire, level, reward, g % num_players)
        deck = list(range(2, 100))
        for _ in range(rnd.choice((0, 1, 2, 4, 8))):
            i, j = rnd.randrange(98), rnd.randrange(98)
            deck[i], deck[j] = deck[j], deck[i]
        state = deal_from_deck(options, deck)
        ref = reference_for(state, options)
        play_differential(state, ref, 7_000_000 + g, greedy=True, stats=stats, label=repr(options))
    assert stats["ALL_PLAYED"] > 0, stats
    assert stats["seat skipped"] > 0, stats
    assert stats["empty hand seen"] > 0, stats
    assert stats["win"] > stats["ALL_PLAYED"], stats  # some wins with 1..9 cards left
