"""Exhaust's AEC and vector envs: PettingZoo conformance per player count and mode, AEC
vs vector env on the same seeds, save/restore, hidden information and bad input."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import (
    assert_illegal_move_ends_the_episode,
    assert_vector_env_rejects_bad_actions,
    option_id,
    play_learner_episode,
    render_test_for,
)

import exhaust_env
from exhaust_env import observe, rules
from exhaust_env.spec import CAST_OFFSET, NUM_ACTIONS, PLAY_TIME_MAGIC, Options
from exhaust_env.state import new_state
from tabletop_core.envs.aec import IllegalActionError, ResetNeededError
from tabletop_core.kernel.rng import sample_legal, seed_word
from tabletop_core.tools.testing import assert_state_roundtrip, at

OPTION_SETS = [
    {"num_players": 2},
    {"num_players": 3},
    {"num_players": 4},
    {"num_players": 5, "zero_sum": True},
    {"num_players": 3, "mode": "long"},
    {"mode": "solo", "npc_deck_size": 18},
]


# PettingZoo's api and seed tests, AEC = vector and save/restore over every option:
# tests/test_api.py (tabletop_core.tools.testing.api_test)
@pytest.mark.parametrize("options", OPTION_SETS, ids=option_id)
def test_pettingzoo_render(options):
    render_test_for(exhaust_env, options)


def test_registry_make_and_agents():
    import pettingzoo

    env = pettingzoo.make("aec", "tabletop/exhaust-v1", num_players=3)
    env.reset(seed=0)
    assert env.possible_agents == ["player_0", "player_1", "player_2"]
    solo = exhaust_env.env(mode="solo")
    solo.reset(seed=0)
    assert solo.possible_agents == ["player_0"]
    assert exhaust_env.env().unwrapped.possible_agents == [f"player_{k}" for k in range(4)]


def _play_random(env, seed, max_steps=5000):
    env.reset(seed=seed)
    rng = np.array([seed_word(seed)], np.uint64)
    trace = []
    for agent in env.agent_iter(max_steps):
        obs, rew, term, trunc, info = env.last()
        trace.append((agent, float(rew), term))
        if term or trunc:
            env.step(None)
        else:
            env.step(int(sample_legal(rng, 0, obs["action_mask"])))
    return trace


def test_episode_ends_with_one_loser_and_documented_rewards():
    for options in OPTION_SETS:
        env = exhaust_env.env(**options)
        trace = _play_random(env, 3)
        assert env.unwrapped._done, "episode did not end"
        st = env.unwrapped._state[0]
        loser = int(st["loser"])
        rewards = dict.fromkeys(env.unwrapped.possible_agents, 0.0)
        for agent, rew, _ in trace:
            rewards[agent] += rew
        n = len(env.unwrapped.possible_agents)
        if options.get("mode") == "solo":
            assert rewards["player_0"] == (1.0 if loser == 1 else -1.0)
            continue
        win = 1.0 / (n - 1) if options.get("zero_sum") else 1.0
        for k, agent in enumerate(env.unwrapped.possible_agents):
            assert rewards[agent] == pytest.approx(-1.0 if k == loser else win)


def test_call_order_and_stepping_after_the_end():
    env = exhaust_env.env(num_players=2)
    with pytest.raises(AttributeError, match="before reset"):
        _ = env.agents
    with pytest.raises(ResetNeededError):
        env.step(0)
    _play_random(env, 1)
    assert env.agents == []
    with pytest.warns(UserWarning, match="after all agents"):
        env.step(0)
    # the env is usable again after reset
    env.reset(seed=2)
    assert env.agents == ["player_0", "player_1"]


def test_raw_env_rejects_illegal_action_and_stays_usable():
    env = exhaust_env.raw_env(num_players=4)
    env.reset(seed=4)
    before = env.get_state()
    with pytest.raises(IllegalActionError, match=r"cast on Pair\) is illegal.*legal actions: .*add"):
        env.step(CAST_OFFSET + 4)  # empty selection: no cast
    with pytest.raises(IllegalActionError, match="Time Magic"):
        env.step(PLAY_TIME_MAGIC)  # no Time Magic held yet
    np.testing.assert_array_equal(env.get_state()["state"], before["state"])
    a = int(env.legal_actions()[0])
    env.step(np.int64(a))
    assert env._state["sel_n"][0] == 1 and env.agent_selection == "player_0"


def test_lean_wrapper_illegal_move_terminates_with_warning():
    env = exhaust_env.env(num_players=3)
    env.reset(seed=0)
    assert_illegal_move_ends_the_episode(env, CAST_OFFSET)


@pytest.mark.parametrize(
    "options, message",
    [
        ({"num_players": 1}, "num_players"),
        ({"num_players": 6}, "num_players"),
        ({"num_players": "2"}, "num_players"),
        ({"mode": "solo", "num_players": 3}, "num_players"),
        ({"mode": "coop"}, "mode"),
        ({"mode": "solo", "npc_deck_size": 0}, "npc_deck_size"),
        ({"mode": "solo", "npc_deck_size": 46}, "npc_deck_size"),
        ({"zero_sum": 1}, "zero_sum"),
        ({"num_players": 2, "start_player": 2}, "start_player"),
        ({"mode": "solo", "start_player": 1}, "start_player"),
        ({"render_mode": "bogus"}, "render_mode"),
    ],
)
def test_bad_options(options, message):
    with pytest.raises(ValueError, match=message):
        exhaust_env.env(**options)


def test_get_set_state_branches_and_pickles():
    env = exhaust_env.raw_env(num_players=3, mode="long")
    saved = assert_state_roundtrip(env, warmup=9, steps=15)
    with pytest.raises(ValueError, match="options"):
        exhaust_env.raw_env(num_players=3).set_state(saved)
    with pytest.raises(ValueError):
        env.set_state({"state": 1})


def test_vector_env_api_errors_and_bots():
    venv = exhaust_env.vector_env(8, seed=3, num_players=4)
    with pytest.raises(RuntimeError, match="reset"):
        venv.step(np.zeros(8, np.int64))
    obs, info = venv.reset()
    assert obs.shape == (8, observe.observation_dim(4)) and obs.dtype == np.float32
    assert info["action_mask"].shape == (8, NUM_ACTIONS) and info["action_mask"].dtype == np.int8
    acts = venv.sample_actions()
    assert_vector_env_rejects_bad_actions(
        venv, acts, 5, CAST_OFFSET + 9, NUM_ACTIONS, match=r"env 5: action 70 \(cast on Any\) is illegal"
    )
    obs, rewards, term, trunc, info = venv.step(acts)
    assert rewards.shape == (8, 4) and rewards.dtype == np.float32
    ended = 0
    for _ in range(400):
        prev_mask = info["action_mask"]
        obs, rewards, term, trunc, info = venv.step_bots("strong,npc,npc,random")
        assert all(prev_mask[i, a] for i, a in enumerate(info["actions"]))  # bots play legal moves
        for i in np.flatnonzero(term):
            ended += 1
            assert sorted(rewards[i].tolist()) == [-1.0, 1.0, 1.0, 1.0]
    assert ended > 0
    solo = exhaust_env.vector_env(3, seed=1, mode="solo")
    obs, info = solo.reset()
    _, rewards, _, _, _ = solo.step(solo.sample_actions())
    assert rewards.shape == (3, 1)
    with pytest.raises(ValueError, match="unknown bot"):
        venv.step_bots("genius")


def test_decode_observation_pieces_and_errors():
    env = exhaust_env.raw_env(mode="solo")
    env.reset(seed=5)
    d = exhaust_env.decode_observation(env.observe("player_0")["observation"])
    for name in (
        "hand",
        "selection",
        "area_top",
        "area_kind",
        "time_magic",
        "hand_sizes",
        "time_magic_pile",
        "replenish_size",
        "played_cards",
        "exhaust_cards",
        "npc_hand",
    ):
        assert name in d
    assert d["hand"].sum() == 15 and d["time_magic_pile"] == 16 and d["replenish_size"] == 4
    assert d["area_kind"][0, 0] == 1 and d["area_kind"][1:4].sum() == 0  # one Single area
    assert d["area_colours"][0].tolist() == [1, 1, 1, 1]
    with pytest.raises(ValueError, match="seat count"):
        exhaust_env.decode_observation(np.zeros(7, np.float32))


def _table_with_secret_variants(options: Options, seed: int):
    s = new_state(1, options)
    s["rng"][0] = seed_word(seed)
    at(rules.deal_r, s, 0)
    return s


@pytest.mark.parametrize("options", [Options(num_players=3), Options(mode="solo"), Options(num_players=2)])
def test_hidden_information_never_shows(options):
    """Changing other hands, the replenishment deck, the NPC deck and the left-out cards
    (keeping every public size) never changes a seat's observation."""
    import random

    rnd = random.Random(0)
    s = _table_with_secret_variants(options, 9)
    # play a few random steps so the table is not empty
    mask = np.zeros(NUM_ACTIONS, np.int8)
    for _ in range(25):
        at(rules.legal_mask_r, s, 0, mask[None, :], 0)
        at(rules.apply_action_r, s, 0, rnd.choice(np.flatnonzero(mask).tolist()))
        if s["status"][0]:
            break
    seats = options.seats
    dim = observe.observation_dim(seats)
    for seat in range(options.players):
        base = np.zeros(dim, np.float32)
        at(observe.observe_r, s, 0, seat, base[None, :], 0)
        for trial in range(20):
            t = s.copy()
            e = t[0]
            # the hidden cards: other agents' hands, replenishment, NPC deck, left out
            hidden = []
            solo = options.mode == "solo"
            for k in range(seats):
                if k != seat and not (solo and k == 1):
                    hidden += [kind for kind in range(61) for _ in range(int(e["hand"][k, kind]))]
            repl_n = int(e["repl_n"])
            npc_n = int(e["npc_n"])
            visible = e["hand"][seat].astype(int) + e["played"].astype(int)
            if solo:
                visible = visible + e["hand"][1].astype(int)
            total = np.array([1] * 60 + [4])
            out_pool = []
            for kind in range(61):
                out_pool += [kind] * int(total[kind] - visible[kind] - hidden.count(kind))
            # left-out cards plus the hidden ones, reshuffled among the hidden places
            pool = hidden + out_pool
            rnd.shuffle(pool)
            pos = 0
            for k in range(seats):
                if k != seat and not (solo and k == 1):
                    n = int(e["hand_n"][k])
                    e["hand"][k] = 0
                    for kind in pool[pos : pos + n]:
                        e["hand"][k, kind] += 1
                    pos += n
            for j in range(repl_n):
                kind = pool[pos]
                e["repl"][j] = kind if kind < 60 else 60 + j % 4
                pos += 1
            for j in range(npc_n):
                kind = pool[pos]
                e["npc_deck"][j] = kind if kind < 60 else 60 + j % 4
                pos += 1
            e["deck"] = np.roll(e["deck"], trial + 1)
            got = np.zeros(dim, np.float32)
            at(observe.observe_r, t, 0, seat, got[None, :], 0)
            np.testing.assert_array_equal(got, base)
            # and the own hand does show: a changed own card changes the observation
        own = s.copy()
        e = own[0]
        if e["hand_n"][seat] > 0:
            kind = int(np.flatnonzero(e["hand"][seat])[0])
            e["hand"][seat, kind] -= 1
            got = np.zeros(dim, np.float32)
            at(observe.observe_r, own, 0, seat, got[None, :], 0)
            assert not np.array_equal(got, base)


def test_render_text_shows_the_table():
    env = exhaust_env.env(num_players=3, render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert "Single red+yellow" in text and "Single blue+green" in text
    for name in ("Pair", "3 cards", "4 cards", "Straight", "Flush", "Any", "player_2"):
        assert name in text
    solo = exhaust_env.env(mode="solo", render_mode="ansi")
    solo.reset(seed=0)
    assert "NPC" in solo.render()


def test_single_agent_learner_seat_against_bots():
    """The learner plays seat 1, npc bots the others (kernels batch_*_learner); its rewards
    add up to the episode's outcome for its seat."""
    import warnings

    from gymnasium.utils.env_checker import check_env

    from tabletop_core.envs.single_agent import LearnerEnv

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(
            LearnerEnv(exhaust_env.GAME, seat=1, opponents="npc", num_players=3, illegal_action="terminate"),
            skip_render_check=True,
        )
    for options in ({"num_players": 3}, {"mode": "solo"}):
        env = LearnerEnv(exhaust_env.GAME, seat=0, opponents="npc", **options)
        for seed in range(4):
            total, _ = play_learner_episode(env, seed)
            loser = int(env._core.state["loser"][0])
            if options.get("mode") == "solo":
                assert total == (1.0 if loser == 1 else -1.0)
            else:
                assert total == (-1.0 if loser == 0 else 1.0)
