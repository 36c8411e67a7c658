"""The Game's AEC and vector envs: PettingZoo conformance, the lean wrapper against the
stock wrappers, AEC vs vector env on the same seeds, save/restore, and bad input."""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pettingzoo
import pytest
from helpers import (
    assert_illegal_move_ends_the_episode,
    assert_vector_env_rejects_bad_actions,
    option_id,
    render_test_for,
)
from pettingzoo.utils.wrappers import AssertOutOfBoundsWrapper, OrderEnforcingWrapper, TerminateIllegalWrapper

import thegame_env
from tabletop_core.envs.aec import IllegalActionError, ResetNeededError
from tabletop_core.tools.testing import assert_state_roundtrip
from thegame_env import END_TURN, NUM_ACTIONS, decode_observation

OPTION_SETS = [
    {"num_players": n, "on_fire": fire, "level": level, "reward": reward}
    for n in (1, 2, 3, 4, 5)
    for fire, level, reward in ((False, 0, "cards"), (True, 2, "win"))
] + [{"num_players": 3, "on_fire": True, "level": 1, "reward": "cards", "start_player": 2}]


# PettingZoo's api and seed tests, AEC = vector and save/restore over every option:
# tests/test_api.py (tabletop_core.tools.testing.api_test)
@pytest.mark.parametrize("options", OPTION_SETS, ids=option_id)
def test_pettingzoo_render(options):
    render_test_for(thegame_env, options)


def test_registry_make():
    env = pettingzoo.make("aec", "tabletop/thegame-v1", num_players=4, on_fire=True)
    env.reset(seed=3)
    assert env.possible_agents == [f"player_{k}" for k in range(4)]
    assert env.unwrapped.options.on_fire is True


def test_spaces_and_observation_layout():
    env = thegame_env.env(num_players=3)
    env.reset(seed=1)
    a = env.agent_selection
    assert env.observation_space(a) is env.observation_space(a)
    assert env.action_space(a) is env.action_space(a)
    obs = env.observe(a)
    assert obs["observation"].dtype == np.float32 and obs["observation"].shape == (607,)
    assert obs["action_mask"].dtype == np.int8 and obs["action_mask"].shape == (NUM_ACTIONS,)
    pieces = decode_observation(obs["observation"])
    hand = env.unwrapped._state["hand"][0, 0, :6]
    assert set(np.flatnonzero(pieces["hand"]) + 2) == set(hand.tolist())
    np.testing.assert_array_equal(pieces["pile_tops"], [1, 1, 100, 100])
    np.testing.assert_array_equal(pieces["hand_sizes"], [6, 6, 6])
    assert pieces["draw_pile_size"] == 98 - 18
    assert pieces["min_plays_left"] == 2 and pieces["is_my_turn"] == 1
    # non-acting agents get an all-zero mask
    assert env.observe("player_1")["action_mask"].sum() == 0
    with pytest.raises(ValueError, match="matches no player count"):
        decode_observation(np.zeros(17, np.float32))


def _play_random(env, seed, illegal_at=None):
    """Random masked play; returns the trace of (agent, reward, term, trunc) per step."""
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    trace = []
    for k, agent in enumerate(env.agent_iter()):
        obs, rew, term, trunc, info = env.last()
        if term or trunc:
            action = None
        else:
            mask = obs["action_mask"]
            if illegal_at is not None and k == illegal_at:
                action = int(np.flatnonzero(mask == 0)[0])
            else:
                action = int(rng.choice(np.flatnonzero(mask)))
        trace.append((agent, rew, term, trunc, tuple(sorted(info.items())) if not term else None))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            env.step(action)
    return trace


def _stock(**options):
    env = thegame_env.raw_env(**options)
    env = TerminateIllegalWrapper(env, illegal_reward=-1)
    env = AssertOutOfBoundsWrapper(env)
    return OrderEnforcingWrapper(env)


@pytest.mark.parametrize("illegal_at", [None, 0, 5, 17])
def test_lean_wrapper_matches_stock_wrappers(illegal_at):
    for seed in range(3):
        lean = _play_random(thegame_env.env(num_players=3), seed, illegal_at)
        stock = _play_random(_stock(num_players=3), seed, illegal_at)
        assert lean == stock


def test_lean_wrapper_illegal_move_terminates_with_warning():
    env = thegame_env.env(num_players=2)
    env.reset(seed=0)
    mask = env.observe(env.agent_selection)["action_mask"]
    assert_illegal_move_ends_the_episode(env, int(np.flatnonzero(mask == 0)[0]))


def test_call_order_checks():
    env = thegame_env.env()
    with pytest.raises(AttributeError, match="before reset"):
        _ = env.agents
    with pytest.raises(AssertionError, match="reset"):
        env.step(0)
    with pytest.raises(ResetNeededError):
        env.observe("player_0")
    env.reset(seed=0)
    # play to the end, then stepping warns and changes nothing
    _play_random(env, 0)
    assert env.agents == []
    with pytest.warns(UserWarning, match="after all agents"):
        env.step(0)


def test_raw_env_rejects_illegal_action_and_stays_usable():
    env = thegame_env.raw_env(num_players=2)
    env.reset(seed=4)
    before = env.get_state()
    with pytest.raises(IllegalActionError, match="legal actions: .*play"):
        env.step(END_TURN)  # nothing played yet: ending the turn is illegal
    np.testing.assert_array_equal(env.get_state()["state"], before["state"])
    assert env.agent_selection == before["agent_selection"]
    env.step(int(env.legal_actions()[0]))
    assert env.unwrapped._state["plays_this_turn"][0] == 1
    # numpy integer actions are accepted
    env.step(np.int64(env.legal_actions()[0]))


@pytest.mark.parametrize(
    "options, message",
    [
        ({"num_players": 0}, "num_players"),
        ({"num_players": 6}, "num_players"),
        ({"num_players": "2"}, "num_players"),
        ({"level": 3}, "level"),
        ({"reward": "points"}, "reward"),
        ({"on_fire": "yes"}, "on_fire"),
        ({"num_players": 2, "start_player": 2}, "start_player"),
        ({"render_mode": "bogus"}, "render_mode"),
    ],
)
def test_bad_options(options, message):
    with pytest.raises(ValueError, match=message):
        thegame_env.env(**options)


def test_get_set_state_branches_and_pickles():
    env = thegame_env.raw_env(num_players=3, on_fire=True)
    saved = assert_state_roundtrip(env)
    other = thegame_env.raw_env(num_players=2)
    with pytest.raises(ValueError, match="shape|options"):
        other.set_state(saved)
    with pytest.raises(ValueError):
        env.set_state({"state": 1})


def test_vector_env_api_and_errors():
    venv = thegame_env.vector_env(8, seed=3, num_players=4)
    assert venv.metadata["autoreset_mode"].name == "SAME_STEP"
    with pytest.raises(RuntimeError, match="reset"):
        venv.step(np.zeros(8, np.int64))
    obs, info = venv.reset()
    assert obs.shape == (8, 608) and obs.dtype == np.float32
    assert info["action_mask"].shape == (8, NUM_ACTIONS) and info["action_mask"].dtype == np.int8
    acts = venv.sample_actions()
    assert all(info["action_mask"][i, a] for i, a in enumerate(acts))
    assert_vector_env_rejects_bad_actions(
        venv, acts, 5, END_TURN, NUM_ACTIONS, match=r"env 5: action 392 \(end turn\) is illegal"
    )
    obs, rewards, term, trunc, info = venv.step(acts)
    assert rewards.shape == (8, 4) and rewards.dtype == np.float32
    assert np.all(rewards == rewards[:, :1])  # cooperative
    with pytest.raises(ValueError, match="num_envs"):
        thegame_env.vector_env(0)
    with pytest.raises(ValueError, match="unknown bot"):
        venv.step_bots("genius")


def test_vector_env_seeding_is_reproducible():
    a = thegame_env.vector_env(4, num_players=2)
    b = thegame_env.vector_env(4, num_players=2)
    oa, _ = a.reset(seed=42)
    ob, _ = b.reset(seed=[42, 43, 44, 45])
    np.testing.assert_array_equal(oa, ob)
    for _ in range(50):
        ra = a.step_bots("strong")
        rb = b.step_bots("strong")
        for x, y in zip(ra[:4], rb[:4]):
            np.testing.assert_array_equal(x, y)
    c = thegame_env.vector_env(4, num_players=2)
    oc, _ = c.reset(seed=43)
    np.testing.assert_array_equal(
        oc[:3], thegame_env.vector_env(4, num_players=2).reset(seed=[43, 44, 45, 0])[0][:3]
    )
    assert not np.array_equal(oa[0], oc[0])


def test_render_text_shows_the_table():
    env = thegame_env.env(num_players=2, on_fire=True, render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert "up1" in text and "down2" in text and "player_1" in text and "draw pile 84" in text


def test_vector_env_get_set_state_replays():
    venv = thegame_env.vector_env(5, seed=2, num_players=3)
    venv.reset()
    for _ in range(20):
        venv.step_bots("strong")
    saved = pickle.loads(pickle.dumps(venv.get_state()))
    first = [venv.step(venv.sample_actions())[0] for _ in range(15)]
    venv.set_state(saved)
    again = [venv.step(venv.sample_actions())[0] for _ in range(15)]
    for x, y in zip(first, again):
        np.testing.assert_array_equal(x, y)
    with pytest.raises(ValueError, match="batch size"):
        thegame_env.vector_env(4, num_players=3).set_state(saved)
    with pytest.raises(ValueError, match="options"):
        thegame_env.vector_env(5, num_players=3, on_fire=True).set_state(saved)


def test_raw_env_after_the_end():
    env = thegame_env.raw_env(num_players=2)
    _play_random(env, 3)
    assert env.agents == []
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    env.reset(seed=3)  # usable again
    assert env.agents == ["player_0", "player_1"]
    # a terminated agent may only pass None
    env2 = thegame_env.raw_env(num_players=2)
    env2.reset(seed=0)
    while not all(env2.terminations.values()):
        env2.step(int(env2.legal_actions()[0]))
    with pytest.raises(ValueError, match="None"):
        env2.step(0)


def _play_fit_reference(hand, piles):
    """``play_fit`` as the rules page words it (4, 98), one play at a time."""
    fit = np.zeros((4, 98))
    for c in hand:
        for p, top in enumerate(piles):
            forward = c > top if p < 2 else c < top
            backwards = c == (top - 10 if p < 2 else top + 10)
            if backwards:
                fit[p, c - 2] = 100
            elif forward:
                fit[p, c - 2] = 100 - abs(c - top)
    return fit


def test_play_fit_scores_each_play_of_the_hand():
    """A scripted table: piles 33 and 1 ascending, 100 and 60 descending; the seat holds
    34 (one above 33), 23 (the backwards trick on 33), 70 (the trick on 60), 99, 50, 2 and
    90. Each entry is 100 - the distance, 100 for the trick, 0 where the card may not go.
    (The seat waiting for its turn: the acting seat's observation is kept from the step.)"""
    env = thegame_env.env(num_players=2)
    env.reset(seed=0)
    st = env.unwrapped._state
    seat = 1 - env.possible_agents.index(env.agent_selection)
    st["piles"][0] = [33, 1, 100, 60]
    st["hand"][0, seat, :7] = [34, 23, 70, 99, 50, 2, 90]
    obs = env.observe(env.possible_agents[seat])
    fit = decode_observation(obs["observation"])["play_fit"]
    assert fit.shape == (4, 98)
    want = {
        34: [99, 67, 34, 74],
        23: [100, 78, 23, 63],
        70: [63, 31, 70, 100],
        99: [34, 2, 99, 0],
        50: [83, 51, 50, 90],
        2: [0, 99, 2, 42],
        90: [43, 11, 90, 0],
    }
    for card, row in want.items():
        np.testing.assert_allclose(fit[:, card - 2], row, atol=1e-4)
    assert np.count_nonzero(fit) == sum(np.count_nonzero(r) for r in want.values())


@pytest.mark.parametrize("players", [1, 3])
def test_play_fit_matches_the_rules_page_in_random_play(players):
    """Every seat's ``play_fit`` against the slow reference above at every step of random
    games, and its nonzero entries are exactly the acting seat's legal plays."""
    env = thegame_env.env(num_players=players)
    for seed in range(3):
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        for _ in range(300):
            st = env.unwrapped._state
            for k, agent in enumerate(env.possible_agents):
                obs = env.observe(agent)
                fit = decode_observation(obs["observation"])["play_fit"]
                hand = st["hand"][0, k, : st["hand_size"][0, k]].tolist()
                want = _play_fit_reference(hand, st["piles"][0].tolist()) if st["status"][0] == 0 else 0
                np.testing.assert_allclose(fit, want, atol=1e-4)
                if agent == env.agent_selection and st["status"][0] == 0:
                    np.testing.assert_array_equal(obs["action_mask"][:END_TURN].reshape(4, 98) != 0, fit > 0)
            if all(env.terminations.values()) or not env.agents:
                break
            mask = env.observe(env.agent_selection)["action_mask"]
            env.step(int(rng.choice(np.flatnonzero(mask))))


def test_the_game_declares_play_fit_as_its_action_piece():
    game = thegame_env.GAME
    for players in (1, 2, 5):
        opts = game.make_options(num_players=players)
        assert game.action_inputs(opts) == ((game.observation_layout(opts).offset["play_fit"], 392),)
