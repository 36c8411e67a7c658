"""Single-agent views (tabletop_core.envs.single_agent) on The Game."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import thegame_env
from tabletop_core.envs.single_agent import LearnerEnv, LearnerVectorEnv


def test_gymnasium_env_checker():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(
            LearnerEnv(thegame_env.GAME, num_players=2, illegal_action="terminate"), skip_render_check=True
        )


def test_learner_env_plays_the_aec_episode():
    """The learner plays every seat of The Game: same deal, masks and rewards as the AEC env."""
    for seed in range(5):
        single = LearnerEnv(thegame_env.GAME, num_players=3, on_fire=True)
        aec = thegame_env.raw_env(num_players=3, on_fire=True)
        obs, info = single.reset(seed=seed)
        aec.reset(seed=seed)
        rng = np.random.default_rng(seed)
        total = 0.0
        while True:
            o = aec.observe(aec.agent_selection)
            np.testing.assert_array_equal(obs, o["observation"])
            np.testing.assert_array_equal(info["action_mask"], o["action_mask"])
            np.testing.assert_array_equal(single.action_masks(), o["action_mask"].astype(bool))
            a = int(rng.choice(np.flatnonzero(info["action_mask"])))
            obs, r, term, trunc, info = single.step(a)
            aec.step(a)
            assert r == aec.rewards["player_0"]
            total += r
            if term:
                assert all(aec.terminations.values())
                break
        assert total == 98 - aec.infos["player_0"]["score"]
        with pytest.raises(RuntimeError, match="reset"):
            single.step(0)


def test_illegal_action_policies():
    env = LearnerEnv(thegame_env.GAME, num_players=2)
    obs, info = env.reset(seed=1)
    bad = int(np.flatnonzero(info["action_mask"] == 0)[0])
    with pytest.raises(ValueError, match="illegal"):
        env.step(bad)
    env.step(int(np.flatnonzero(info["action_mask"])[0]))  # still usable
    term_env = LearnerEnv(thegame_env.GAME, num_players=2, illegal_action="terminate")
    term_env.reset(seed=1)
    _, r, term, _, info = term_env.step(bad)
    assert term and r == -1.0 and info["illegal_action"]
    with pytest.raises(ValueError, match="illegal_action"):
        LearnerEnv(thegame_env.GAME, illegal_action="ignore")
    with pytest.raises(ValueError, match="cooperative"):
        LearnerEnv(thegame_env.GAME, seat=1)


def test_learner_vector_env_autoresets_and_matches_single_envs():
    b = 4
    venv = LearnerVectorEnv(thegame_env.GAME, b, seed=10, num_players=2)
    singles = [LearnerEnv(thegame_env.GAME, num_players=2) for _ in range(b)]
    obs, info = venv.reset()
    sobs = [s.reset(seed=10 + i)[0] for i, s in enumerate(singles)]
    np.testing.assert_array_equal(obs, np.stack(sobs))
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(120):
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in info["action_mask"]])
        obs, rewards, term, trunc, info = venv.step(actions)
        assert rewards.shape == (b,) and not trunc.any()
        for i, s in enumerate(singles):
            if s._ended:
                continue
            so, sr, st, _, _ = s.step(int(actions[i]))
            assert sr == rewards[i] and st == term[i]
            if st:
                np.testing.assert_array_equal(info["final_obs"][i], so)
                ended += 1
            else:
                np.testing.assert_array_equal(obs[i], so)
    assert ended > 0
    assert venv.action_masks().shape == (b, thegame_env.NUM_ACTIONS)


def test_competitive_learner_seat_against_bots():
    """Koikoi: the learner plays seat 1, bots the others; its rewards sum to its chip change."""
    koikoi_env = pytest.importorskip("koikoi_env")
    game = koikoi_env.GAME
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(
            LearnerEnv(game, seat=1, opponents="greedy", num_players=3, rounds=1, illegal_action="terminate"),
            skip_render_check=True,
        )
    env = LearnerEnv(game, seat="player_1", opponents="greedy,random", num_players=3, rounds=2)
    for seed in range(5):
        obs, info = env.reset(seed=seed)
        total = 0.0
        rng = np.random.default_rng(seed)
        while True:
            assert info["action_mask"].any()
            obs, r, term, _, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
            total += r
            if term:
                break
        chips = env._core.state["chips"][0]
        assert total == chips[1] - 25
    venv = LearnerVectorEnv(game, 6, seat=2, opponents="strong", seed=1, num_players=4, rounds=1)
    obs, info = venv.reset()
    for _ in range(200):
        acts = np.array([np.flatnonzero(m)[0] for m in info["action_mask"]])
        obs, rewards, term, trunc, info = venv.step(acts)
        assert (venv._core.cur == 2).all()  # the learner is always the one to act


@pytest.mark.parametrize("name", ["exhaust", "koikoi", "exitnow"])
def test_final_observation_is_the_learners_own_seat(name):
    """An ended episode's last observation is the learner's seat's view of the final
    state (seat 1 here: a seat index and the kernels' seat bit set differ)."""
    from tabletop_core.contract.catalog import load_game
    from tabletop_core.envs.single_agent import LearnerCore

    game = load_game(name)
    core = LearnerCore(game, 6, 1, "random", {})
    core.reset(list(range(6)))
    rng = np.random.default_rng(1)
    seen = np.zeros(6, bool)
    for _ in range(3000):
        if seen.all():
            break
        live = ~core.term
        acts = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in core.mask])
        if not live.all():  # ended envs stay ended: give them their (unused) legal action
            break
        core.step(acts, autoreset=False)
        for i in np.flatnonzero(core.term & ~seen):
            want = np.empty_like(core.final[i])
            game.observe(core.state[i : i + 1], 0, 1, want)
            np.testing.assert_array_equal(core.final[i], want)
            seen[i] = True
    assert seen.any()
