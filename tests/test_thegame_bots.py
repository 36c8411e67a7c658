"""Scripted bots of The Game: legality, strength and hidden information."""

from __future__ import annotations

import numba
import numpy as np
import pytest

from tabletop_core.kernel.rng import seed_word
from tabletop_core.tools.testing import at
from thegame_env.bots import BOT_IDS, BOT_NAMES, bot_action_r
from thegame_env.rules import apply_action_r, deal_r, legal_mask_r, score_r
from thegame_env.spec import END_TURN, NUM_ACTIONS, NUM_CARDS, Options
from thegame_env.state import new_state


@numba.njit(cache=False)
def _play_checked(s, bot_ids, bot_rng, scores):
    """Play every env to the end with ``bot_ids``; return the number of illegal actions."""
    mask = np.zeros(NUM_ACTIONS, np.int8)
    bad = 0
    for i in range(s.shape[0]):
        deal_r(s[i])
        while s[i].status == 0:
            legal_mask_r(s[i], mask[None, :], 0)
            a = bot_action_r(s[i], bot_ids[s[i].current], mask[None, :], 0, bot_rng, i)
            if a < 0 or a >= NUM_ACTIONS or mask[a] == 0:
                bad += 1
                break
            apply_action_r(s[i], a)
        scores[i] = score_r(s[i])
    return bad


def _seeded(batch: int, options: Options, offset: int) -> tuple[np.ndarray, np.ndarray]:
    s = new_state(batch, options)
    s["rng"] = [seed_word(offset + k) for k in range(batch)]
    bot_rng = np.array([seed_word(offset + 10**9 + k) for k in range(batch)], np.uint64)
    return s, bot_rng


@pytest.mark.parametrize("bot", BOT_NAMES)
@pytest.mark.parametrize("num_players", [1, 2, 3, 4, 5])
@pytest.mark.parametrize(("on_fire", "level"), [(False, 0), (True, 0), (False, 1), (True, 2)])
def test_bots_only_play_legal_actions(bot, num_players, on_fire, level):
    options = Options(num_players=num_players, on_fire=on_fire, level=level)
    s, bot_rng = _seeded(60, options, offset=7919 * num_players + 31 * level + int(on_fire))
    scores = np.zeros(60, np.int64)
    bad = _play_checked(s, np.full(num_players, BOT_IDS[bot], np.int64), bot_rng, scores)
    assert bad == 0
    assert (scores >= 0).all() and (scores <= NUM_CARDS).all()


def test_mixed_bots_only_play_legal_actions():
    ids = np.array([BOT_IDS[b] for b in ("strong", "random", "greedy", "strong")], np.int64)
    s, bot_rng = _seeded(100, Options(num_players=4), offset=555)
    assert _play_checked(s, ids, bot_rng, np.zeros(100, np.int64)) == 0


def _mean_score(bot: str, num_players: int, games: int = 300) -> float:
    s, bot_rng = _seeded(games, Options(num_players=num_players), offset=123456)
    scores = np.zeros(games, np.int64)
    assert _play_checked(s, np.full(num_players, BOT_IDS[bot], np.int64), bot_rng, scores) == 0
    return float(scores.mean())


@pytest.mark.parametrize("num_players", [1, 3, 5])
def test_strong_bot_beats_random_and_greedy(num_players):
    strong = _mean_score("strong", num_players)
    greedy = _mean_score("greedy", num_players)
    rand = _mean_score("random", num_players)
    # random leaves ~60-80 cards, the placeholder greedy bot ~10-22; strong far fewer.
    assert strong < rand - 40
    assert strong < greedy - 2
    assert strong < 16.0


def _mid_game_states(num_players: int, count: int, seed: int) -> np.ndarray:
    """States reached by the strong bot, sampled at random points of the game."""
    rng = np.random.default_rng(seed)
    s = new_state(1, Options(num_players=num_players))
    mask = np.zeros(NUM_ACTIONS, np.int8)
    bot_rng = np.zeros(1, np.uint64)
    out = []
    game = 0
    while len(out) < count:
        s["rng"] = seed_word(seed * 1000 + game)
        game += 1
        at(deal_r, s, 0)
        stop = int(rng.integers(0, 90))
        n = 0
        while s[0]["status"] == 0 and n < stop:
            at(legal_mask_r, s, 0, mask[None, :], 0)
            at(apply_action_r, s, 0, at(bot_action_r, s, 0, BOT_IDS["strong"], mask[None, :], 0, bot_rng, 0))
            n += 1
        if s[0]["status"] == 0:
            out.append(s.copy())
    return np.concatenate(out)


@pytest.mark.parametrize("num_players", [1, 2, 3, 5])
def test_strong_bot_ignores_hidden_information(num_players):
    states = _mid_game_states(num_players, 80, seed=num_players)
    rng = np.random.default_rng(99 + num_players)
    mask = np.zeros(NUM_ACTIONS, np.int8)
    bot_rng = np.zeros(1, np.uint64)
    sid = BOT_IDS["strong"]
    changed_something = 0
    for j in range(states.shape[0]):
        s = states[j : j + 1].copy()
        at(legal_mask_r, s, 0, mask[None, :], 0)
        before = at(bot_action_r, s, 0, sid, mask[None, :], 0, bot_rng, 0)
        for _ in range(3):
            t = s.copy()
            hand, sizes, deck = t["hand"][0], t["hand_size"][0], t["deck"][0]
            cur = int(t["current"][0])
            pos = int(t["deck_pos"][0])
            others = [p for p in range(num_players) if p != cur and sizes[p] > 0]
            if len(others) >= 2:
                a, b = rng.choice(others, 2, replace=False)
                na, nb = int(sizes[a]), int(sizes[b])
                pool = np.concatenate([hand[a, :na], hand[b, :nb]])
                rng.shuffle(pool)
                hand[a, :na] = pool[:na]
                hand[b, :nb] = pool[na:]
                changed_something += 1
            elif len(others) == 1 and pos < NUM_CARDS:
                # one other seat: swap one of its cards with a draw-pile card (both hidden)
                a = others[0]
                k = int(rng.integers(0, sizes[a]))
                d = int(rng.integers(pos, NUM_CARDS))
                hand[a, k], deck[d] = deck[d], hand[a, k]
                changed_something += 1
            if pos < NUM_CARDS:
                deck[pos:] = rng.permutation(deck[pos:])
                changed_something += 1
            t["hand"][0] = hand
            t["deck"][0] = deck
            at(legal_mask_r, t, 0, mask[None, :], 0)
            after = at(bot_action_r, t, 0, sid, mask[None, :], 0, bot_rng, 0)
            assert after == before, (j, before, after)
    assert changed_something > 0


def test_strong_bot_ends_turn_only_when_allowed():
    states = _mid_game_states(2, 50, seed=17)
    mask = np.zeros(NUM_ACTIONS, np.int8)
    bot_rng = np.zeros(1, np.uint64)
    for j in range(states.shape[0]):
        s = states[j : j + 1].copy()
        at(legal_mask_r, s, 0, mask[None, :], 0)
        a = at(bot_action_r, s, 0, BOT_IDS["strong"], mask[None, :], 0, bot_rng, 0)
        assert mask[a] == 1
        if a == END_TURN:
            assert s[0]["plays_this_turn"] >= 1
