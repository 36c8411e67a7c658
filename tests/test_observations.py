"""Every game's observation lies in Box(0, 1): random play over every option for the AEC
env (every agent's view there is the observation kernel's), the vector env and both
single-agent views; decode_observation returns game units (and encoding them again gives
the vector back); PettingZoo's api_test passes."""

from __future__ import annotations

import importlib

import numpy as np
import pytest
from gymnasium import spaces
from pettingzoo.test import api_test

from tabletop_core.contract.encoders import ObservationLayout, Piece
from tabletop_core.envs.single_agent import LearnerEnv, LearnerVectorEnv

OPTIONS = {
    "thegame_env": [
        {"num_players": 1, "level": 2},
        {"num_players": 2, "on_fire": True},
        {"num_players": 3, "level": 1, "reward": "win", "start_player": 2},
        {"num_players": 4, "on_fire": True, "level": 2},
        {"num_players": 5, "start_player": 4},
    ],
    "exhaust_env": [
        {"num_players": 2},
        {"num_players": 3, "mode": "long"},
        {"num_players": 4, "zero_sum": True, "start_player": 3},
        {"num_players": 5, "mode": "long", "zero_sum": True},
        {"mode": "solo", "npc_deck_size": 1},
        {"mode": "solo", "npc_deck_size": 45},
    ],
    "koikoi_env": [
        {"num_players": 2, "rounds": 1},
        {"num_players": 3, "rounds": 32, "first_dealer": 2},
        {"num_players": 4},
    ],
    "exitnow_envs": [
        {"num_humans": 1},
        {"num_humans": 2, "layout": "random", "centre_side": "random", "centre_rotation": "random"},
        {"num_humans": 3, "team": True},
        {"num_humans": 4, "layout": 575, "max_rounds": 1},
        {"num_humans": 5, "max_rounds": 1000, "centre_side": 1, "centre_rotation": 3},
    ],
}
CASES = [(pkg, k) for pkg, sets in OPTIONS.items() for k in range(len(sets))]


def _layout(package, options):
    game = package.GAME
    return game.observation_layout(game.make_options(**options))


def assert_in_unit_box(x: np.ndarray, what: str) -> None:
    x = np.asarray(x)
    assert x.dtype == np.float32, what
    bad = np.flatnonzero((x < 0) | (x > 1) | ~np.isfinite(x))
    assert bad.size == 0, f"{what}: entries outside [0, 1] at {bad[:10]} ({x.reshape(-1)[bad[:10]]})"


def assert_decodes_to_game_units(layout: ObservationLayout, obs: np.ndarray) -> None:
    """Decoded counts are integers in 0..high; encoding them again gives ``obs`` back."""
    pieces = layout.decode(obs)
    for name, shape, high, kind in layout.pieces:
        v = pieces[name].reshape(obs.shape[:-1] + (layout.size[name],))
        stored = obs[..., layout.offset[name] : layout.offset[name] + layout.size[name]]
        if kind == "count":
            assert np.all(v == np.rint(v)) and np.all(v >= 0) and np.all(v <= high), name
            again = v.astype(np.float32) * layout.scale[name]
            np.testing.assert_array_equal(again, stored, err_msg=name)
        else:
            assert np.isin(stored, (0.0, 1.0)).all(), name
            if kind == "one_hot" and shape:
                assert np.all(pieces[name].sum(axis=-1) <= 1), name


@pytest.mark.slow
@pytest.mark.parametrize("pkg,k", CASES)
def test_aec_observations_in_unit_box(pkg, k):
    package = importlib.import_module(pkg)
    options = OPTIONS[pkg][k]
    env = package.raw_env(**options)
    layout = _layout(package, options)
    space = env.observation_space(env.possible_agents[0])["observation"]
    assert space == spaces.Box(0.0, 1.0, (layout.dim,), np.float32)
    assert space.low.min() == 0 and space.high.max() == 1
    env.reset(seed=k)
    gen = np.random.default_rng(k)
    seen = []
    direct = np.empty(layout.dim, np.float32)
    for _ in range(300):
        for seat, agent in enumerate(env.possible_agents):
            o = env.observe(agent)["observation"]
            assert_in_unit_box(o, f"{pkg} {options} {agent}")
            assert space.contains(o)
            # any agent's view (batch_step's OBSERVE_SEAT) is the observation kernel's
            package.GAME.observe(env._state, 0, seat, direct)
            np.testing.assert_array_equal(o, direct, err_msg=f"{pkg} {options} {agent}")
            seen.append(o)
        if all(env.terminations.values()):
            env.reset()
            continue
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(gen.choice(np.flatnonzero(mask))))
    assert_decodes_to_game_units(layout, np.stack(seen))


@pytest.mark.slow
@pytest.mark.parametrize("pkg,k", CASES)
def test_vector_observations_in_unit_box(pkg, k):
    package = importlib.import_module(pkg)
    options = OPTIONS[pkg][k]
    venv = package.vector_env(32, seed=k, **options)
    layout = _layout(package, options)
    assert venv.single_observation_space == spaces.Box(0.0, 1.0, (layout.dim,), np.float32)
    assert venv.observation_space == spaces.Box(0.0, 1.0, (32, layout.dim), np.float32)
    obs, info = venv.reset()
    assert_in_unit_box(obs, pkg)
    ended = 0
    for t in range(200):
        if t % 2:
            obs, _, term, _, info = venv.step_bots(venv.game.bot_names[-1])
        else:
            obs, _, term, _, info = venv.step(venv.sample_actions())
        assert_in_unit_box(obs, f"{pkg} {options} step {t}")
        final = info["final_obs"][info["_final_obs"]]
        assert_in_unit_box(final, f"{pkg} {options} final step {t}")
        ended += int(term.sum())
        if t % 20 == 0:
            assert_decodes_to_game_units(layout, obs)
            if len(final):
                assert_decodes_to_game_units(layout, final)
    assert ended > 0 or pkg == "koikoi_env"


@pytest.mark.slow
@pytest.mark.parametrize("pkg,k", CASES)
def test_single_agent_observations_in_unit_box(pkg, k):
    package = importlib.import_module(pkg)
    options = OPTIONS[pkg][k]
    game = package.GAME
    d = _layout(package, options).dim
    env = LearnerEnv(game, **options)
    assert env.observation_space == spaces.Box(0.0, 1.0, (d,), np.float32)
    gen = np.random.default_rng(k)
    obs, info = env.reset(seed=k)
    for _ in range(200):
        assert_in_unit_box(obs, f"{pkg} {options} LearnerEnv")
        obs, _, term, trunc, info = env.step(int(gen.choice(np.flatnonzero(env.action_masks()))))
        if term or trunc:
            assert_in_unit_box(obs, f"{pkg} {options} LearnerEnv final")
            obs, info = env.reset()
    venv = LearnerVectorEnv(game, 16, seed=k, **options)
    assert venv.single_observation_space == spaces.Box(0.0, 1.0, (d,), np.float32)
    assert venv.observation_space == spaces.Box(0.0, 1.0, (16, d), np.float32)
    obs, info = venv.reset()
    for _ in range(100):
        assert_in_unit_box(obs, f"{pkg} {options} LearnerVectorEnv")
        masks = venv.action_masks()
        actions = np.array([gen.choice(np.flatnonzero(m)) for m in masks], np.int64)
        obs, _, _, _, info = venv.step(actions)
        assert_in_unit_box(info["final_obs"][info["_final_obs"]], f"{pkg} {options} final")


@pytest.mark.parametrize("pkg", list(OPTIONS))
def test_pettingzoo_api_test(pkg):
    package = importlib.import_module(pkg)
    api_test(package.env(**OPTIONS[pkg][1]), num_cycles=40)


def test_layout_scales_and_decodes_counts():
    layout = ObservationLayout(
        [
            Piece("cards", (3,), 1, "flag"),
            ("value", (), 100),
            ("seat", (4,), 1, "one_hot"),
            ("counts", (2,), [4, 8], "count"),
        ]
    )
    assert layout.dim == 10 and layout.kind["value"] == "count" and layout.kind["cards"] == "flag"
    assert layout.scale["value"] == np.float32(0.01)
    v = np.zeros(10, np.float32)
    v[3] = np.float32(37) * layout.scale["value"]
    v[5] = 1.0
    v[8:10] = np.array([3, 8], np.float32) * layout.scale["counts"]
    d = layout.decode(v)
    assert d["value"] == 37 and d["counts"].tolist() == [3, 8] and d["seat"].tolist() == [0, 1, 0, 0]
    assert layout.decode(np.stack([v, v]))["value"].tolist() == [37, 37]
    for high in range(1, 1001):  # value * (1 / high) never rounds above 1 in float32
        assert np.float32(high) * np.float32(1.0 / high) <= 1.0
    with pytest.raises(ValueError, match="high must be > 0"):
        ObservationLayout([("a", (), 0)])
    with pytest.raises(ValueError, match="kind must be one of"):
        ObservationLayout([("a", (), 1, "scalar")])
    with pytest.raises(ValueError, match="high 1"):
        ObservationLayout([("a", (2,), 3, "one_hot")])
    with pytest.raises(ValueError, match="2 entries"):
        ObservationLayout([("a", (3,), [1, 2])])
