"""Conformance checks for a game package (used by the test suite; usable for new games)."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np

from .rng import sample_legal, seed_word

__all__ = ["assert_aec_matches_vector", "assert_state_roundtrip", "on_env"]


def assert_aec_matches_vector(
    package: ModuleType, options: dict[str, Any], num_envs: int = 4, seed: int = 100, steps: int = 300
) -> int:
    """Play random legal actions in ``package.vector_env(num_envs)`` reset with ``seed`` and
    in ``num_envs`` AEC envs reset with ``seed + i``; assert that every observation, mask,
    acting seat, reward, termination and final observation agree at every step, across
    autoresets (an ended AEC env is reset without a seed, continuing its own stream).

    Returns:
        The number of episodes that ended (callers usually assert it is > 0).

    Raises:
        AssertionError: at the first disagreement.
    """
    game = package.GAME
    venv = package.vector_env(num_envs, **options)
    obs, info = venv.reset(seed=seed)
    aecs = [package.raw_env(**options) for _ in range(num_envs)]
    for i, e in enumerate(aecs):
        e.reset(seed=seed + i)
    rng = np.array([seed_word(7 + i) for i in range(num_envs)], np.uint64)
    ended = 0
    for _ in range(steps):
        actions = np.zeros(num_envs, np.int64)
        for i, e in enumerate(aecs):
            agent = e.agent_selection
            o = e.observe(agent)
            np.testing.assert_array_equal(o["observation"], obs[i])
            np.testing.assert_array_equal(o["action_mask"], info["action_mask"][i])
            assert e.possible_agents.index(agent) == info["current_player"][i]
            actions[i] = sample_legal(rng, i, o["action_mask"])
        obs, rewards, term, trunc, info = venv.step(actions)
        assert not trunc.any()
        for i, e in enumerate(aecs):
            mover = e.possible_agents.index(e.agent_selection)
            e.step(int(actions[i]))
            np.testing.assert_allclose([e.rewards[a] for a in e.possible_agents], rewards[i])
            assert all(e.terminations.values()) == bool(term[i])
            if term[i]:
                ended += 1
                final = np.empty_like(obs[i])
                game.observe(e._state, 0, mover, final)
                np.testing.assert_array_equal(info["final_obs"][i], final)
                e.reset()
    return ended


def assert_state_roundtrip(env: Any, seed: int = 11, warmup: int = 7, steps: int = 10) -> dict:
    """Play ``warmup`` steps of the raw AEC ``env``, save its state through pickle, play
    ``steps`` more, restore, replay the same actions, and assert the same agents act and
    the same final state is reached (``get_state``/``set_state`` branch exactly).

    Returns:
        The saved state (for further checks, e.g. rejection by an env with other options).
    """
    import pickle

    env.reset(seed=seed)
    for _ in range(warmup):
        env.step(int(env.legal_actions()[-1]))
    saved = pickle.loads(pickle.dumps(env.get_state()))

    def play() -> list:
        trace = []
        for _ in range(steps):
            a = int(env.legal_actions()[0])
            trace.append((a, env.agent_selection))
            env.step(a)
        return trace

    first = play()
    after = env.get_state()
    env.set_state(saved)
    assert play() == first
    np.testing.assert_array_equal(env.get_state()["state"], after["state"])
    return saved


def on_env(kernel_r: Any, s: np.ndarray, i: int, *args: Any) -> Any:
    """Run the record kernel ``kernel_r`` (a rules ``*_r(e, ...)`` kernel) on env ``i`` of
    the State record array ``s``: ``kernel_r(s[i], *args)``.

    ``s[i]`` is a view of the record, so what the kernel writes lands in ``s``. Tests call
    the rules this way instead of through one-line ``(s, i, ...)`` wrappers.

    Returns:
        Whatever the kernel returns.
    """
    return kernel_r(s[i], *args)
