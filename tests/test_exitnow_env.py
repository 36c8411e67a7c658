"""Exit Now environments: PettingZoo API, seeding, rendering, AEC vs vector env, bad
inputs, save/restore, random play over every option and hidden information."""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest
from helpers import assert_vector_env_rejects_bad_actions
from pettingzoo.test import render_test

import exitnow_envs
from exitnow_envs import GAME, Options, decode_observation
from exitnow_envs.game import episode_stats
from exitnow_envs.observe import OBS_DIM, PLANE_NAMES, observe_r
from exitnow_envs.spec import (
    DECK_SIZE,
    MAX_GHOSTS,
    NUM_ACTIONS,
    NUM_ITEM_KINDS,
    Phase,
    Status,
)
from tabletop_core.envs.aec import ActionOutOfBoundsError, IllegalActionError
from tabletop_core.kernel.rng import seed_word
from tabletop_core.tools.testing import at

MODES = [(n, team) for n in range(1, 6) for team in (False, True)]


# PettingZoo's api and seed tests, AEC = vector and save/restore over every option:
# tests/test_api.py (tabletop_core.tools.testing.api_test)
@pytest.mark.parametrize("num_humans,team", MODES)
def test_render_modes(num_humans, team):
    render_test(
        lambda render_mode=None: exitnow_envs.env(num_humans=num_humans, team=team, render_mode=render_mode)
    )


def test_rgb_and_ansi_pictures():
    e = exitnow_envs.env(render_mode="rgb_array")
    e.reset(seed=3)
    img = e.render()
    assert img.shape == (600, 900, 3) and img.dtype == np.uint8
    assert len(np.unique(img.reshape(-1, 3), axis=0)) > 8  # squares, chips, pieces, doors drawn
    t = exitnow_envs.env(render_mode="ansi")
    t.reset(seed=3)
    text = t.render()
    assert "human_0" in text and "ghost_0" in text and "??" in text and "EE" in text and "g1" in text


def test_registry_and_agents():
    import pettingzoo

    e = pettingzoo.make("aec", "tabletop/exitnow-v1", num_humans=4)
    e.reset(seed=0)
    assert e.possible_agents == ["human_0", "human_1", "human_2", "human_3", "ghost_0"]
    assert e.agent_selection == "human_0"


def test_observation_pieces_decode():
    e = exitnow_envs.env(num_humans=3)
    e.reset(seed=5)
    obs = e.observe("human_0")["observation"]
    assert obs.shape == (OBS_DIM,)
    p = decode_observation(obs)
    for name in ("planes", "items", "item_counts", "roll", "phase", "round", "captured", "skip", "deck_size"):
        assert name in p
    assert p["planes"].shape == (len(PLANE_NAMES), 21, 21)
    ch = {n: k for k, n in enumerate(PLANE_NAMES)}
    assert p["planes"][ch["event_chip"]].sum() == 17
    assert p["planes"][ch["ghost_1"]].sum() == 1
    assert p["planes"][ch["own_piece"]].sum() == 1  # human_0 entered on the start square
    assert p["planes"][ch["exit"]].sum() == 1
    assert p["phase"][Phase.MOVE] == 1 or p["phase"][Phase.ITEM] == 1
    assert p["deck_size"] == DECK_SIZE
    assert 1 <= p["roll"] <= 6
    batch = decode_observation(np.stack([obs, obs]))
    assert batch["planes"].shape == (2, len(PLANE_NAMES), 21, 21)
    with pytest.raises(ValueError):
        decode_observation(obs[:-1])


def _play_aec(e, seed, rng, steps=400):
    e.reset(seed=seed)
    trace = []
    for _ in range(steps):
        agent = e.agent_selection
        obs, _, term, trunc, _ = e.last()
        if term or trunc:
            break
        a = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        trace.append((agent, a, obs["observation"].copy()))
        e.step(a)
    return trace


def test_aec_and_vector_env_play_the_same_games():
    num = 4
    v = exitnow_envs.vector_env(num, seed=100, num_humans=2, layout="random")
    obs, info = v.reset(seed=100)
    rng = np.random.default_rng(0)
    envs = []
    for k in range(num):
        a = exitnow_envs.raw_env(num_humans=2, layout="random")
        a.reset(seed=100 + k)
        envs.append(a)
    done = np.zeros(num, bool)
    for _ in range(300):
        acts = np.zeros(num, np.int64)
        for k, a in enumerate(envs):
            if done[k]:
                acts[k] = int(np.flatnonzero(info["action_mask"][k])[0])
                continue
            o = a.observe(a.agent_selection)
            assert np.array_equal(o["observation"], obs[k])
            assert np.array_equal(o["action_mask"], info["action_mask"][k])
            assert a.agents.index(a.agent_selection) == info["current_player"][k]
            acts[k] = int(rng.choice(np.flatnonzero(o["action_mask"])))
        obs, rew, term, trunc, info = v.step(acts)
        for k, a in enumerate(envs):
            if done[k]:
                continue
            agent = a.agent_selection
            a.step(int(acts[k]))
            assert [a.rewards[x] for x in a.possible_agents] == rew[k].tolist(), agent
            if term[k]:
                assert all(a.terminations.values())
                done[k] = True
    assert not trunc.any()


def test_bad_inputs_give_clear_errors_and_leave_the_env_usable():
    e = exitnow_envs.raw_env(num_humans=2)
    e.reset(seed=1)
    mask = e.observe(e.agent_selection)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    before = e.get_state()
    with pytest.raises(IllegalActionError, match="illegal"):
        e.step(illegal)
    with pytest.raises(ActionOutOfBoundsError):
        e.step(NUM_ACTIONS)
    with pytest.raises(ActionOutOfBoundsError):
        e.step(-1)
    with pytest.raises(ActionOutOfBoundsError):
        e.step(1.5)
    with pytest.raises(ActionOutOfBoundsError):
        e.step(True)
    assert np.array_equal(e.get_state()["state"], before["state"])
    e.step(int(np.flatnonzero(mask)[0]))  # still usable
    # wrapped: an illegal action ends the game with -1 for the offender
    w = exitnow_envs.env(num_humans=2)
    w.reset(seed=1)
    agent = w.agent_selection
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        w.step(illegal)
    assert w.rewards[agent] == -1.0 and all(w.terminations.values())
    while w.agents:  # every terminated agent steps out with None
        w.step(None)
    with pytest.warns(UserWarning, match="terminated"):
        w.step(0)  # stepping after the end only warns
    w.reset(seed=2)
    assert not any(w.terminations.values())


def test_vector_env_rejects_bad_actions_without_stepping():
    v = exitnow_envs.vector_env(3, seed=0)
    obs, info = v.reset()
    good = np.array([np.flatnonzero(m)[0] for m in info["action_mask"]])
    illegal = int(np.flatnonzero(info["action_mask"][1] == 0)[0])
    assert_vector_env_rejects_bad_actions(v, good, 1, illegal, NUM_ACTIONS)
    v.step(good)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"num_humans": 0},
        {"num_humans": 6},
        {"num_humans": "3"},
        {"num_humans": True},
        {"layout": 576},
        {"layout": -1},
        {"layout": "fancy"},
        {"centre_side": 2},
        {"centre_rotation": 4},
        {"centre_rotation": "left"},
        {"team": 1},
        {"max_rounds": 0},
        {"max_rounds": 2.5},
        {"boards": "mine"},
    ],
)
def test_bad_options_are_rejected_by_name(kwargs):
    name = next(iter(kwargs))
    with pytest.raises(ValueError, match=name):
        Options(**kwargs)
    with pytest.raises(ValueError, match=name):
        exitnow_envs.env(**kwargs)


def test_get_state_set_state_branches_and_pickles():
    e = exitnow_envs.raw_env(num_humans=3)
    e.reset(seed=7)
    rng = np.random.default_rng(1)
    for _ in range(25):
        m = e.observe(e.agent_selection)["action_mask"]
        e.step(int(rng.choice(np.flatnonzero(m))))
    saved = pickle.loads(pickle.dumps(e.get_state()))
    actions = []
    for _ in range(30):
        if e.terminations[e.agent_selection]:
            break
        m = e.observe(e.agent_selection)["action_mask"]
        a = int(rng.choice(np.flatnonzero(m)))
        actions.append(a)
        e.step(a)
    end = e.get_state()["state"].copy()
    e.set_state(saved)
    for a in actions:
        e.step(a)
    assert np.array_equal(e.get_state()["state"], end)
    other = exitnow_envs.raw_env(num_humans=3, max_rounds=20)
    other.reset(seed=0)
    with pytest.raises(ValueError, match="options"):
        other.set_state(saved)


# --- random play over every option ----------------------------------------------------------
def _play(options: Options, games: int, bots, seed0: int):
    s = GAME.new_state(games, options)
    s["rng"] = [seed_word(seed0 + k) for k in range(games)]
    bot_rng = np.array([seed_word(10**6 + seed0 + k) for k in range(games)], np.uint64)
    returns = np.zeros((games, options.num_humans + 1))
    steps = np.zeros(games, np.int64)
    GAME.play_games(s, GAME.bot_ids(bots, options.num_humans + 1), bot_rng, returns, steps)
    return s, returns, steps


def _check_final(s, returns, options):
    n = options.num_humans
    for k in range(s.shape[0]):
        e = s[k]
        st = int(e["status"])
        assert st in (Status.HUMAN_WIN, Status.GHOST_WIN)
        assert e["phase"] == Phase.OVER
        # card conservation: deck + held + confiscated + used + action cards drawn == 17
        chips_left = int((e["chip"] == 1).sum())
        assert int(e["deck_n"]) == chips_left
        items_out = int(e["items"][:n].sum() + e["confiscated"].sum() + e["used"].sum())
        assert items_out <= DECK_SIZE - int(e["deck_n"])
        assert (e["items"] >= 0).all() and (e["confiscated"] >= 0).all()
        assert (e["chip"] == 2).sum() <= 1
        assert int(e["gon"].sum()) <= MAX_GHOSTS
        for h in range(n):
            if e["captured"][h]:
                assert e["hpos"][h, 0] == -1 and e["items"][h].sum() == 0
            elif e["hpos"][h, 0] >= 0:
                r, c = e["hpos"][h]
                assert e["cell"][r, c] not in (1, 2, 11, 12, 13)  # never on wall, water, sealed door
        if st == Status.HUMAN_WIN:
            w = int(e["winner"])
            assert e["cell"][e["hpos"][w, 0], e["hpos"][w, 1]] == 3  # on the exit
            exp = [1.0 if (options.team or h == w) else -1.0 for h in range(n)] + [-1.0]
        else:
            assert int(e["round"]) == options.max_rounds
            exp = [-1.0] * n + [1.0]
        assert returns[k].tolist() == exp


@pytest.mark.parametrize("num_humans", [1, 2, 3, 4, 5])
def test_random_play_keeps_the_invariants(num_humans):
    for team in (False, True):
        for layout, mr in (("random", 30), ("default", 13)):
            o = Options(
                num_humans=num_humans,
                team=team,
                layout=layout,
                max_rounds=mr,
                centre_side="random",
                centre_rotation="random",
            )
            s, ret, steps = _play(o, 150, "random", 1000 * num_humans + 7 * team)
            _check_final(s, ret, o)
            assert (steps > 0).all()
            s, ret, steps = _play(o, 60, "smart", 50 + num_humans)
            _check_final(s, ret, o)


def test_smart_bots_beat_random_bots():
    o = Options(num_humans=3)
    s, ret, _ = _play(o, 1000, "smart", 3)
    fair = (ret[:, 3] < 0).mean()
    assert 0.35 <= fair <= 0.65, fair  # the default max_rounds is fair for the smart bots
    assert episode_stats(s)["human_win"].mean() == pytest.approx(fair)
    _, ret, _ = _play(o, 400, ["smart", "smart", "smart", "random"], 1)
    assert (ret[:, 3] < 0).mean() > fair + 0.08  # a random ghost lets smart humans out more
    _, ret, _ = _play(o, 400, ["random", "random", "random", "smart"], 2)
    assert (ret[:, 3] < 0).mean() < fair - 0.3  # random humans hardly escape the smart ghost


def test_vector_env_step_bots_and_sampler():
    v = exitnow_envs.vector_env(8, seed=3, num_humans=2)
    v.reset()
    ends = 0
    for _ in range(300):
        _, rew, term, _, info = v.step_bots("smart")
        ends += int(term.sum())
        assert np.all(info["action_mask"].sum(axis=1) >= 1)
        assert np.all((rew.sum(axis=1) != 0) <= term)
        a = v.sample_actions()
        assert all(info["action_mask"][k, a[k]] for k in range(8))
    assert ends > 0


# --- hidden information -----------------------------------------------------------------------
def _midgames(count, seed):
    o = Options(num_humans=3, max_rounds=60, layout="random")
    rng = np.random.default_rng(seed)
    out = []
    e = exitnow_envs.raw_env(num_humans=3, max_rounds=60, layout="random")
    for g in range(count):
        e.reset(seed=seed + g)
        for _ in range(int(rng.integers(20, 120))):
            if e.terminations[e.agent_selection]:
                break
            m = e.observe(e.agent_selection)["action_mask"]
            e.step(int(rng.choice(np.flatnonzero(m))))
        if not e.terminations[e.agent_selection]:
            out.append(e.get_state()["state"].copy())
    return o, out


def _shuffle_hidden(s, viewer: int, n: int, rng: np.random.Generator):
    """A copy of ``s`` with what ``viewer`` cannot see drawn anew: the other humans' item
    kinds (counts kept), the deck order and the confiscated pile's kinds (size kept)."""
    t = s.copy()
    e = t[0]
    for h in range(n):
        if h != viewer:
            k = int(e["items"][h].sum())
            e["items"][h] = np.bincount(rng.integers(0, NUM_ITEM_KINDS, k), minlength=NUM_ITEM_KINDS)
    dn = int(e["deck_n"])
    e["deck"][:dn] = rng.permutation(e["deck"][:dn])
    c = int(e["confiscated"].sum())
    e["confiscated"] = np.bincount(rng.integers(0, NUM_ITEM_KINDS, c), minlength=NUM_ITEM_KINDS)
    return t


def test_observation_hides_item_kinds_deck_order_and_confiscated_pile():
    o, states = _midgames(40, 11)
    rng = np.random.default_rng(5)
    checked = changed = 0
    for s in states:
        n = o.num_humans
        for viewer in range(n + 1):
            base = np.zeros(OBS_DIM, np.float32)
            at(observe_r, s, 0, viewer, base[None, :], 0)
            for _ in range(3):
                t = _shuffle_hidden(s, viewer, n, rng)
                changed += not np.array_equal(t, s)
                out = np.zeros(OBS_DIM, np.float32)
                at(observe_r, t, 0, viewer, out[None, :], 0)
                assert np.array_equal(out, base)
                checked += 1
    assert checked > 100 and changed > 0.5 * checked


def test_observation_shows_own_items():
    o, states = _midgames(5, 3)
    s = states[0].copy()
    base = np.zeros(OBS_DIM, np.float32)
    at(observe_r, s, 0, 0, base[None, :], 0)
    s[0]["items"][0, 1] += 1
    out = np.zeros(OBS_DIM, np.float32)
    at(observe_r, s, 0, 0, out[None, :], 0)
    assert decode_observation(out)["items"][1] == decode_observation(base)["items"][1] + 1
    other = np.zeros(OBS_DIM, np.float32)
    at(observe_r, s, 0, 1, other[None, :], 0)
    assert decode_observation(other)["item_counts"][0] == s[0]["items"][0].sum()


def test_bots_read_only_what_their_seat_observes():
    from exitnow_envs.bots import bot_action_r
    from exitnow_envs.rules import legal_mask_r

    o, states = _midgames(40, 21)
    rng = np.random.default_rng(8)
    checked = 0
    for s in states:
        n = o.num_humans
        seat = int(s[0]["current"])
        mask = np.zeros(NUM_ACTIONS, np.int8)
        at(legal_mask_r, s, 0, mask[None, :], 0)
        word = np.array([seed_word(checked)], np.uint64)
        base = at(bot_action_r, s, 0, 1, mask[None, :], 0, word.copy(), 0)
        for _ in range(3):
            t = _shuffle_hidden(s, seat, n, rng)
            assert at(bot_action_r, t, 0, 1, mask[None, :], 0, word.copy(), 0) == base
            checked += 1
    assert checked > 60


def test_single_agent_view_and_player_view():
    from tabletop_core.envs.single_agent import LearnerEnv

    env = LearnerEnv(GAME, seat="ghost_0", opponents="smart", num_humans=2)
    obs, info = env.reset(seed=4)
    total, steps = 0.0, 0
    while True:
        p = decode_observation(obs)
        assert p["seat"][5] == 1 and p["current"][5] == 1  # the learner is always the ghost
        a = int(np.flatnonzero(info["action_mask"])[0])
        obs, reward, terminated, _, info = env.step(a)
        total += reward
        steps += 1
        if terminated:
            break
    assert total in (-1.0, 1.0) and steps > 0
    s = GAME.new_state(1, Options(num_humans=2))
    s["rng"][0] = seed_word(0)
    from exitnow_envs.rules import deal_r

    at(deal_r, s, 0)
    s[0]["items"][0, 1] = 1
    assert "Cross x1" in GAME.render_view(s, None, 0)
    assert "Cross" not in GAME.render_view(s, None, 1)
