"""Koikoi through the adapters: PettingZoo API/seed/render tests for 2, 3 and 4 players,
AEC env vs vector env on the same seeds, hidden information, bad inputs, registry,
decode_observation and get_state/set_state."""

from __future__ import annotations

import functools
import pickle
import warnings

import numpy as np
import pettingzoo
import pytest
from helpers import assert_vector_env_rejects_bad_actions
from pettingzoo.test import render_test

import koikoi_env
from koikoi_env import bots, observe, rules
from koikoi_env.spec import KOIKOI, NUM_ACTIONS, NUM_CARDS, STOP, TAKE_OFFSET, Options, parse_card
from koikoi_env.state import LOC_CAPTURED, LOC_HAND, LOC_STOCK, new_state
from tabletop_core.envs.aec import ActionOutOfBoundsError, IllegalActionError
from tabletop_core.kernel.rng import seed_word
from tabletop_core.tools.testing import at

PLAYERS = [2, 3, 4]


def _random_actions(env, seed: int, max_steps: int = 10_000):
    """Play the AEC env with uniform legal actions from ``np.random.default_rng(seed)``."""
    rng = np.random.default_rng(seed)
    actions = []
    for agent in env.agent_iter(max_steps):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        a = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        actions.append((agent, a))
        env.step(a)
    return actions


# --- PettingZoo test suite (api and seed tests over every option: tests/test_api.py) -------
@pytest.mark.slow
@pytest.mark.parametrize("num_players", PLAYERS)
def test_pettingzoo_render_test(num_players, capsys):
    render_test(functools.partial(koikoi_env.env, num_players=num_players, rounds=1))
    assert "Shikokushi Koikoi" in capsys.readouterr().out  # human mode printed the table


def test_ansi_render_shows_suits_and_ranks_the_way_a_player_reads_them():
    env = koikoi_env.env(num_players=2, render_mode="ansi")
    env.reset(seed=3)
    text = env.render()
    hand = np.flatnonzero(env.unwrapped._state["loc"][0] == LOC_HAND + 0)
    for c in hand:
        assert koikoi_env.card_name(int(c)) in text
    assert any(sym in text for sym in "♠♥♦♣")
    assert (
        "player_0 (dealer)" in text
        and "chips 25" in text
        and "now: player_0 plays a card from the hand" in text
    )


def test_registry_makes_the_env():
    env = pettingzoo.make("aec", "tabletop/koikoi-v1", num_players=3)
    env.reset(seed=0)
    assert env.possible_agents == ["player_0", "player_1", "player_2"]
    assert koikoi_env.ENV_ID == "tabletop/koikoi-v1"


# --- episodes, rewards ------------------------------------------------------------------
@pytest.mark.parametrize("num_players", PLAYERS)
def test_rewards_sum_to_final_chips_minus_25_and_chips_are_conserved(num_players):
    env = koikoi_env.env(num_players=num_players, rounds=8)
    for seed in range(3):
        env.reset(seed=seed)
        total = dict.fromkeys(env.possible_agents, 0.0)
        rng = np.random.default_rng(seed)
        rounds_seen = 0
        for _agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            a = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            env.step(a)
            for ag, r in env.rewards.items():
                total[ag] += r
            assert sum(env.rewards.values()) == 0
            st = env.unwrapped._state[0]
            assert int(st["chips"][:num_players].sum()) == 25 * num_players
            rounds_seen = int(st["round"])
        chips = env.unwrapped._state[0]["chips"][:num_players]
        assert [total[f"player_{k}"] for k in range(num_players)] == [float(c) - 25 for c in chips]
        assert rounds_seen >= 1


# --- AEC vs vector ------------------------------------------------------------------------
@pytest.mark.parametrize("num_players", PLAYERS)
def test_vector_env_plays_exactly_what_aec_envs_play_on_the_same_seeds(num_players):
    base, num_envs = 40, 4
    venv = koikoi_env.vector_env(num_envs, num_players=num_players, rounds=2)
    obs, info = venv.reset(seed=base)
    aecs = []
    for i in range(num_envs):
        e = koikoi_env.raw_env(num_players=num_players, rounds=2)
        e.reset(seed=base + i)
        aecs.append(e)
    rng = np.random.default_rng(0)
    done = np.zeros(num_envs, bool)
    steps = 0
    while not done.all():
        actions = np.zeros(num_envs, np.int64)
        for i, e in enumerate(aecs):
            if done[i]:
                actions[i] = int(np.flatnonzero(info["action_mask"][i])[0])  # next episode, not compared
                continue
            o = e.observe(e.agent_selection)
            assert np.array_equal(o["observation"], obs[i])
            assert np.array_equal(o["action_mask"], info["action_mask"][i])
            assert int(info["current_player"][i]) == e.possible_agents.index(e.agent_selection)
            actions[i] = int(rng.choice(np.flatnonzero(o["action_mask"])))
        obs, rewards, term, trunc, info = venv.step(actions)
        for i, e in enumerate(aecs):
            if done[i]:
                continue
            e.step(int(actions[i]))
            assert rewards[i].tolist() == [e.rewards[a] for a in e.possible_agents]
            assert bool(term[i]) == all(e.terminations.values())
            if term[i]:
                assert info["_final_obs"][i]
                final = koikoi_env.decode_observation(info["final_obs"][i])
                chips = e.unwrapped._state[0]["chips"][:num_players]
                assert sorted(final["chips"].tolist()) == sorted(chips.tolist())
                done[i] = True
        steps += 1
    assert steps > 10


def test_vector_env_autoresets_and_step_bots_runs():
    venv = koikoi_env.vector_env(8, num_players=4, rounds=1, seed=3)
    venv.reset()
    ended = 0
    for _ in range(400):
        legal_before = venv.action_masks()
        _, rewards, term, _, info = venv.step_bots("strong,greedy,random,random")
        assert (rewards.sum(axis=1) == 0).all()
        assert legal_before[np.arange(8), info["actions"]].all()
        ended += int(term.sum())
    assert ended > 8
    acts = venv.sample_actions()
    assert venv.action_masks()[np.arange(8), acts].all()


# --- hidden information -------------------------------------------------------------------
def _observe(s, seat, n):
    out = np.zeros(observe.observation_dim(n), np.float32)
    at(observe.observe_r, s, 0, seat, out[None, :], 0)
    return out


def _midgame(num_players: int, seed: int, rng: np.random.Generator, most_plays: int):
    """A dealt round after up to ``most_plays`` random plays (drawn from ``rng``), or None
    when the round is over by then."""
    s = new_state(1, Options(num_players=num_players))
    s["rng"][0] = seed_word(seed)
    at(rules.deal_r, s, 0)
    mask = np.zeros(NUM_ACTIONS, np.int8)
    for _ in range(int(rng.integers(0, most_plays))):
        at(rules.legal_mask_r, s, 0, mask[None, :], 0)
        if s["status"][0] != 0:
            break
        at(rules.apply_action_r, s, 0, int(rng.choice(np.flatnonzero(mask))))
    return None if s["status"][0] != 0 else s


def _shuffle_hidden(s, seat: int, rng: np.random.Generator):
    """A copy of ``s`` with the cards ``seat`` cannot see (the other hands and the stock)
    dealt among those places anew, keeping every count, and the stock in a new order."""
    t = s.copy()
    e = t[0]
    hidden = [
        c
        for c in range(NUM_CARDS)
        if e["loc"][c] == LOC_STOCK
        or (LOC_HAND <= e["loc"][c] < LOC_CAPTURED and e["loc"][c] != LOC_HAND + seat)
    ]
    perm = rng.permutation(hidden)
    codes = [int(e["loc"][c]) for c in hidden]
    for c, code in zip(perm, codes):
        e["loc"][c] = code
    at(rules.sync_bits_r, t, 0)
    e["deck"][int(e["deck_pos"]) :] = [
        c for c in perm[[k for k, code in enumerate(codes) if code == LOC_STOCK]]
    ]
    return t


@pytest.mark.parametrize("num_players", PLAYERS)
def test_other_hands_and_stock_order_never_change_a_seats_observation(num_players):
    rng = np.random.default_rng(num_players)
    for seed in range(20):
        s = _midgame(num_players, seed, rng, 30)  # some play first
        if s is None:
            continue
        for seat in range(num_players):
            before = _observe(s, seat, num_players)
            t = _shuffle_hidden(s, seat, rng)
            assert np.array_equal(_observe(t, seat, num_players), before)
            # ... while the own hand does show
            own = np.flatnonzero(t[0]["loc"] == LOC_HAND + seat)
            decoded = koikoi_env.decode_observation(before)
            assert set(np.flatnonzero(decoded["hand"]).tolist()) == set(own.tolist())


def test_bots_do_not_read_hidden_cards():
    """Changing other hands and the stock order never changes greedy's or strong's choice."""
    rng = np.random.default_rng(1)
    mask = np.zeros(NUM_ACTIONS, np.int8)
    bot_rng = np.array([seed_word(1)], np.uint64)
    checked = 0
    for seed in range(60):
        s = _midgame(3, seed, rng, 25)
        if s is None:
            continue
        at(rules.legal_mask_r, s, 0, mask[None, :], 0)
        t = _shuffle_hidden(s, int(s["current"][0]), rng)
        for bot in (1, 2):
            assert at(bots.bot_action_r, s, 0, bot, mask[None, :], 0, bot_rng, 0) == at(
                bots.bot_action_r, t, 0, bot, mask[None, :], 0, bot_rng, 0
            )
        checked += 1
    assert checked > 20


# --- observation pieces -------------------------------------------------------------------
@pytest.mark.parametrize("num_players", PLAYERS)
def test_decode_observation_returns_the_named_pieces(num_players):
    env = koikoi_env.raw_env(num_players=num_players)
    env.reset(seed=11)
    o = env.observe(env.agent_selection)["observation"]
    d = koikoi_env.decode_observation(o)
    shapes = {
        "hand": (88,),
        "field": (88,),
        "captured": (num_players, 88),
        "deck_size": (),
        "dealer": (num_players,),
        "round": (),
        "chips": (num_players,),
        "koikoi_counts": (num_players,),
        "yaku_scores": (num_players,),
        "phase": (4,),
        "pending_matches": (88,),
        "unseen_of_rank": (88,),
        "action_takes": (88,),
        "own_yaku_closer": (88, 3),
        "rival_yaku_rise": (88,),
    }
    for name, shape in shapes.items():
        assert d[name].shape == shape, name
    assert d["hand"].sum() == 8 and d["field"].sum() == 8
    assert d["deck_size"] == 88 - 8 * num_players - 8
    assert d["chips"].tolist() == [25] * num_players
    assert d["phase"].tolist() == [1, 0, 0, 0]
    assert d["dealer"][0] == 1 and d["current"][0] == 1  # seat 0 deals and acts: index 0 = self
    other = koikoi_env.decode_observation(env.observe("player_1")["observation"])
    assert other["dealer"][num_players - 1] == 1  # seen from seat 1, seat 0 is the last index
    batch_d = koikoi_env.decode_observation(np.stack([o, o]))
    assert batch_d["captured"].shape == (2, num_players, 88)
    with pytest.raises(ValueError, match="matches no player count"):
        koikoi_env.decode_observation(np.zeros(10, np.float32))


# --- bad inputs ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"num_players": 1}, "num_players"),
        ({"num_players": 5}, "num_players"),
        ({"num_players": 2.0}, "num_players"),
        ({"rounds": 0}, "rounds"),
        ({"rounds": 33}, "rounds"),
        ({"rounds": True}, "rounds"),
        ({"num_players": 3, "first_dealer": 3}, "first_dealer"),
        ({"first_dealer": -1}, "first_dealer"),
    ],
)
def test_bad_options_raise_value_errors_naming_the_option(kwargs, match):
    with pytest.raises(ValueError, match=match):
        koikoi_env.env(**kwargs)
    with pytest.raises(ValueError, match=match):
        koikoi_env.vector_env(2, **kwargs)
    with pytest.raises(ValueError, match="render_mode"):
        koikoi_env.raw_env(render_mode="bogus")


def test_illegal_and_out_of_range_actions_on_raw_env_raise_and_leave_it_usable():
    env = koikoi_env.raw_env(num_players=2)
    env.reset(seed=1)
    saved = env.get_state()
    legal = env.legal_actions()
    illegal = next(a for a in range(NUM_ACTIONS) if a not in set(legal.tolist()))
    with pytest.raises(IllegalActionError, match="illegal"):
        env.step(illegal)
    for bad in (-1, NUM_ACTIONS, 1.5, "3", True):
        with pytest.raises(ActionOutOfBoundsError):
            env.step(bad)
    with pytest.raises(IllegalActionError):
        env.step(KOIKOI)
    assert np.array_equal(env.get_state()["state"], saved["state"])
    env.step(int(legal[0]))  # still usable
    env.step(np.int64(env.legal_actions()[0]))


def test_illegal_action_on_wrapped_env_ends_the_game_with_a_penalty():
    env = koikoi_env.env(num_players=3)
    env.reset(seed=2)
    agent = env.agent_selection
    with pytest.raises(AssertionError):  # out of range: raised, the game goes on
        env.step(NUM_ACTIONS + 5)
    assert not any(env.terminations.values())
    with pytest.warns(UserWarning, match="Illegal move"):
        env.step(STOP)
    assert env.rewards[agent] == -1
    assert sorted(env.rewards.values()) == [-1, 0, 0]
    assert all(env.terminations.values())
    env.reset(seed=2)  # usable again
    assert env.agent_selection == "player_0"


def test_step_after_the_end_warns_and_stepping_before_reset_raises():
    env = koikoi_env.env(num_players=2, rounds=1)
    with pytest.raises(AssertionError):
        env.step(0)
    env.reset(seed=4)
    _random_actions(env, 0)
    assert not env.agents
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        env.step(0)
    assert any("step() called after all agents" in str(x.message) for x in w)
    env.reset(seed=4)
    assert len(env.agents) == 2


def test_vector_env_rejects_bad_actions_without_stepping():
    venv = koikoi_env.vector_env(3, num_players=2, seed=0)
    obs, info = venv.reset()
    good = np.array([np.flatnonzero(m)[0] for m in info["action_mask"]])
    assert_vector_env_rejects_bad_actions(venv, good, 1, TAKE_OFFSET + 5, NUM_ACTIONS)
    venv.step(good)


# --- get_state / set_state ------------------------------------------------------------------
def test_get_state_set_state_replays_the_same_future():
    env = koikoi_env.raw_env(num_players=3, rounds=2)
    env.reset(seed=9)
    _ = [env.step(int(env.legal_actions()[0])) for _ in range(15)]
    saved = pickle.loads(pickle.dumps(env.get_state()))
    run1 = _random_actions(env, 5)
    final1 = env.get_state()["state"].copy()
    env.set_state(saved)
    run2 = _random_actions(env, 5)
    assert run1 == run2
    assert np.array_equal(env.get_state()["state"], final1)
    other = koikoi_env.raw_env(num_players=3, rounds=3)
    with pytest.raises(ValueError, match="options"):
        other.set_state(saved)


def test_card_names_round_trip():
    for c in range(NUM_CARDS):
        assert parse_card(koikoi_env.card_name(c)) == c
    assert koikoi_env.card_name(0) == "♠0" and koikoi_env.card_name(22 + 16) == "♥α"
    assert koikoi_env.action_name(KOIKOI) == "koi-koi" and koikoi_env.action_name(STOP) == "stop"
    assert koikoi_env.action_name(TAKE_OFFSET + 45) == "take ♦1"
    with pytest.raises(ValueError):
        parse_card("♠16")
    with pytest.raises(ValueError):
        koikoi_env.action_name(NUM_ACTIONS)


def test_step_bots_in_the_vector_env_plays_the_same_games_as_play_games():
    n, num_envs, seed = 4, 6, 77
    bots = "strong,greedy,random,random"
    venv = koikoi_env.vector_env(num_envs, num_players=n, rounds=2)
    venv.reset(seed=seed)
    bot_rng0 = venv.get_state()["bot_rng"].copy()
    totals = np.zeros((num_envs, n))
    finished = np.zeros(num_envs, bool)
    first_steps = np.zeros(num_envs, np.int64)
    for _ in range(2 * 240):
        _, rewards, term, _, _ = venv.step_bots(bots)
        totals[~finished] += rewards[~finished]
        first_steps[~finished] += 1
        finished |= term
        if finished.all():
            break
    assert finished.all()
    s = new_state(num_envs, Options(num_players=n, rounds=2))
    s["rng"] = [seed_word(seed + i) for i in range(num_envs)]
    returns = np.zeros((num_envs, n))
    steps = np.zeros(num_envs, np.int64)
    koikoi_env.GAME.play_games(s, koikoi_env.GAME.bot_ids(bots, n), bot_rng0, returns, steps)
    assert np.array_equal(returns, totals)
    assert np.array_equal(steps, first_steps)
    assert (steps <= koikoi_env.GAME.max_episode_steps).all()
    stats = koikoi_env.episode_stats(s)
    assert np.array_equal(stats["top_chips"], s["chips"][:, :n].max(axis=1))
    assert set(stats) >= {"rounds", "bankrupt", "winner", "chips_0", "chips_3"}
