"""Fixed-seed trajectories hashed: the game's course must not depend on how observations
are encoded.

For every game over a few option sets, an AEC env and a vector env are played from a
fixed seed with random legal actions drawn from a seeded generator and with bot-driven
steps. Each step's actions, rewards, terminations, truncations and acting seats (never
observation values) go into a SHA-256 whose expected value was computed from the code as
it was before the observation encoding changed (issue 13). A change to the rules, the
bots, the generators or the autoreset shows up here; a change of observation encoding
does not.
"""

from __future__ import annotations

import hashlib
import importlib

import numpy as np
import pytest

from tabletop_core.kernel.rng import seed_word

CASES = {
    "thegame_env": [
        {"num_players": 1},
        {"num_players": 3, "on_fire": True, "level": 1},
        {"num_players": 5, "level": 2, "reward": "win", "start_player": 2},
    ],
    "exhaust_env": [
        {"num_players": 2},
        {"num_players": 4, "mode": "long", "zero_sum": True},
        {"mode": "solo", "npc_deck_size": 17},
    ],
    "koikoi_env": [
        {"num_players": 2, "rounds": 1},
        {"num_players": 4, "rounds": 3, "first_dealer": 2},
    ],
    "exitnow_envs": [
        {"num_humans": 1},
        {"num_humans": 3, "team": True, "layout": "random", "max_rounds": 5},
        {"num_humans": 5, "layout": 7, "centre_side": 1, "centre_rotation": 2},
    ],
}

PARAMS = [(pkg, k) for pkg, sets in CASES.items() for k in range(len(sets))]
AEC_STEPS = 400
VEC_ENVS = 8
VEC_STEPS = 200


def _feed(h, *arrays) -> None:
    for a in arrays:
        h.update(np.ascontiguousarray(np.asarray(a, np.float64)).tobytes())


def aec_trajectory_hash(package, options: dict, seed: int = 2024) -> str:
    """Play ``AEC_STEPS`` agent steps (episodes restarted as they end): even steps a
    random legal action, odd steps the last bot in ``bot_names`` (the strongest)."""
    game = package.GAME
    env = package.raw_env(**options)
    env.reset(seed=seed)
    gen = np.random.default_rng(seed)
    bot = len(game.bot_names) - 1
    bot_rng = np.array([seed_word(seed + 1)], np.uint64)
    h = hashlib.sha256()
    for t in range(AEC_STEPS):
        agent = env.agent_selection
        seat = env.possible_agents.index(agent)
        mask = env.observe(agent)["action_mask"]
        if t % 2 == 0:
            action = int(gen.choice(np.flatnonzero(mask)))
        else:
            action = game.bot_decision(bot, env._state, env._mask[0], bot_rng)
        env.step(action)
        agents = env.possible_agents
        _feed(
            h,
            [seat, action],
            [env.rewards[a] for a in agents],
            [env.terminations[a] for a in agents],
            [env.truncations[a] for a in agents],
        )
        if all(env.terminations[a] or env.truncations[a] for a in agents):
            env.reset()
    return h.hexdigest()


def vector_trajectory_hash(package, options: dict, seed: int = 77) -> str:
    """Play ``VEC_STEPS`` batch steps of ``VEC_ENVS`` envs (same-step autoreset): steps
    cycle through actions from a seeded NumPy generator, the compiled sampler, and the
    bots (``step_bots`` with the first and the last bot)."""
    game = package.GAME
    venv = package.vector_env(VEC_ENVS, num_threads=1, **options)
    _, info = venv.reset(seed=seed)
    gen = np.random.default_rng(seed)
    h = hashlib.sha256()
    _feed(h, info["current_player"])
    for t in range(VEC_STEPS):
        kind = t % 4
        if kind == 0:
            mask = info["action_mask"]
            actions = np.array([gen.choice(np.flatnonzero(m)) for m in mask], np.int64)
            out = venv.step(actions)
        elif kind == 1:
            actions = venv.sample_actions()
            out = venv.step(actions)
        else:
            out = venv.step_bots(game.bot_names[0 if kind == 2 else -1])
            actions = out[4]["actions"]
        _, rewards, term, trunc, info = out
        _feed(h, actions, rewards, term, trunc, info["current_player"])
    return h.hexdigest()


# Computed from the code before the observation encoding changed (issue 13).
EXPECTED_AEC = {
    ("thegame_env", 0): "169ab28e7dd45c943482331af078bfd7c24aaf5b005493eb18f6e6b5107c2db1",
    ("thegame_env", 1): "b4f1cb7660146e45ef6f7f8b7ac3194527371bf808e7a36f5a5008a71b351447",
    ("thegame_env", 2): "56eb775b8c3fcec0501972f78941b5a6d95b9c51b732cf653892237641c2c64a",
    ("exhaust_env", 0): "b8a3d18ff9735541b8b9efa0a550255167d9f832399e749fbddbe22a77d3052e",
    ("exhaust_env", 1): "b4efe0ac25192630334085c6129f8e198a92e93954d8d4000b72e14db577d6f2",
    ("exhaust_env", 2): "c21b862118aadc1f377cc832a61832bdb22030e333a18b888a32bd99251410df",
    ("koikoi_env", 0): "7751a9e6894010a05c7590f7141a64d909dbf5b7df572eebe56b9a4b8ce9cb57",
    ("koikoi_env", 1): "40c18d2fb09aa72dd28d858e557350123baf1d5a4745263bf555b705109774ac",
    ("exitnow_envs", 0): "fbcc17f1e6a4cd0e5b689a153c3cd1bd9ffe8785380a55cb28670371a7154ca8",
    ("exitnow_envs", 1): "85584571d9c2cb301969a41dce38076aec3d449182aec814124ed3ff78e3a2f0",
    ("exitnow_envs", 2): "1a8a06f974272afe499cf530c417f4794921307072a440a79bd5c3f5ef9908a7",
}
EXPECTED_VECTOR = {
    ("thegame_env", 0): "90c71596af993e826d36c1319c755ad23a1ea5c9f17022c03a382414b8d8ea87",
    ("thegame_env", 1): "eb9ed3f662636fb19ba65ee332bbda26b15fcdd3326ca74b3c1e4e4f5bd179d0",
    ("thegame_env", 2): "6eeda06a1285de3f21db3705024ebfc5ee93999f8918db315b4fcdfb08f0a931",
    ("exhaust_env", 0): "e20e3fabfbe4d11a92103b7eaad9d42d9ae052cd5cb53e65b08e4e25b75452ca",
    ("exhaust_env", 1): "38dc47ad6dba2ab521dfbe61dd5fa594bc3be138bf75d8dfbf3322c1f9ef771c",
    ("exhaust_env", 2): "371811ab50b933c91aa219078f5f2e9cd3f728b394d1d3e531785e82ca675389",
    ("koikoi_env", 0): "34c337a4ab61f43ba9f06f27f990d54df2b017125540ab286f3f53177cab827b",
    ("koikoi_env", 1): "f6094b78d76e2e54fac568e7bb6a335794744f7b680251599bb416d74c2f20a7",
    ("exitnow_envs", 0): "a2fde25c9d5c162563475247454d0abfedd9096c64c3b92f5ae604f0ef868742",
    ("exitnow_envs", 1): "b75a30ac60a53b1b93a039c1bd514c6917e0b9bb0baacb3ba958df79f91239a3",
    ("exitnow_envs", 2): "dd52ec6d309c464141e476ff3bd77a90201e5274e9efe65a1367a7640a3f4765",
}


@pytest.mark.parametrize("pkg,k", PARAMS)
def test_aec_trajectories_keep_their_hash(pkg, k):
    package = importlib.import_module(pkg)
    assert aec_trajectory_hash(package, CASES[pkg][k]) == EXPECTED_AEC[pkg, k]


@pytest.mark.parametrize("pkg,k", PARAMS)
def test_vector_trajectories_keep_their_hash(pkg, k):
    package = importlib.import_module(pkg)
    assert vector_trajectory_hash(package, CASES[pkg][k]) == EXPECTED_VECTOR[pkg, k]


if __name__ == "__main__":  # print the table of expected values
    for pkg, k in PARAMS:
        package = importlib.import_module(pkg)
        print(f"    ({pkg!r}, {k}): {aec_trajectory_hash(package, CASES[pkg][k])!r},")
    for pkg, k in PARAMS:
        package = importlib.import_module(pkg)
        print(f"    ({pkg!r}, {k}): {vector_trajectory_hash(package, CASES[pkg][k])!r},")
