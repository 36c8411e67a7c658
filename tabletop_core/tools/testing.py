"""Conformance checks for a game package (used by the test suite; usable for new games)."""

from __future__ import annotations

import pickle
from types import ModuleType
from typing import Any

import numpy as np
from pettingzoo.test import api_test as pz_api_test
from pettingzoo.test import seed_test

from tabletop_core.contract.catalog import load_game
from tabletop_core.contract.options import option_infos
from tabletop_core.envs.factories import game_envs
from tabletop_core.kernel.records import at
from tabletop_core.kernel.rng import sample_legal, seed_word

__all__ = [
    "api_test",
    "option_grid",
    "assert_aec_matches_vector",
    "assert_state_roundtrip",
    "check_spaces_and_a_whole_game",
    "at",
]


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
    game = package.raw_env.game
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

    env.reset(seed=seed)
    for _ in range(warmup):
        if len(env.legal_actions()) == 0:  # a short game (one round) may end in the warm-up
            break
        env.step(int(env.legal_actions()[-1]))
    saved = pickle.loads(pickle.dumps(env.get_state()))

    def play() -> list:
        trace = []
        for _ in range(steps):
            if len(env.legal_actions()) == 0:
                break
            a = int(env.legal_actions()[0])
            trace.append((a, env.agent_selection))
            env.step(a)
        return trace

    first = play()
    after = env.get_state()
    env.set_state(saved)
    assert play() == first
    now = env.get_state()["state"]
    for f in now.dtype.names:  # the whole State is game state (adapter notes live apart)
        np.testing.assert_array_equal(now[f], after["state"][f], err_msg=f)
    return saved


def option_grid(game: Any) -> list[dict[str, Any]]:
    """Option sets that together take every option to each of its values: the defaults,
    then one option at a time at each of its choices (a ``bool`` both ways; an ``int``
    range at its ends; its extra words such as ``"random"``), leaving out combinations the
    game rejects (a start seat past the default player count), and last as many of those
    values at once as the game accepts together. Read from the game's ``spec.Options``
    declarations (:mod:`tabletop_core.contract.options`).
    """

    grid: list[dict[str, Any]] = [{}]
    for o in option_infos(type(game.make_options())):
        if not o.cli:
            continue
        if o.choices:
            values = list(o.choices)
        elif o.type is bool:
            values = [True, False]
        else:
            values = [v for v in (o.low, o.high) if v is not None]
        for v in [*values, *o.words]:
            if v == o.default or {o.name: v} in grid:
                continue
            try:
                game.make_options(**{o.name: v})
            except ValueError:
                continue
            grid.append({o.name: v})
    # and every option off its default at once, where the game allows the combination
    together: dict[str, Any] = {}
    for opts in grid[1:]:
        trial = {**together, **opts}
        try:
            game.make_options(**trial)
        except ValueError:
            continue
        together = trial
    if len(together) > 1 and together not in grid:
        grid.append(together)
    return grid


def api_test(
    name: str, options: list[dict[str, Any]] | None = None, cycles: int = 40, steps: int = 150
) -> int:
    """The conformance test every game passes (``tests/test_api.py``), over ``options``
    (default :func:`option_grid`): for each option set,

    * PettingZoo's ``api_test`` on ``env()`` and ``raw_env()``, and its ``seed_test``;
    * spaces and dtypes: observations ``float32`` inside ``Box(0, 1)``, masks ``int8``
      with a legal action, single and batched (``vector_env``: obs (B, D), masks (B, A),
      rewards (B, P) float32, terminations bool);
    * a whole random game in the AEC env: every agent terminated, finite rewards, no
      truncation before ``max_episode_steps``;
    * save/restore: ``get_state`` / ``set_state`` branch exactly (:func:`assert_state_roundtrip`);
    * AEC ≡ vector: the same seeds play the same episodes (:func:`assert_aec_matches_vector`).

    Returns:
        The number of option sets checked.

    Raises:
        AssertionError: at the first failure, naming the options.
    """

    game = load_game(name)
    package = game_envs(game)
    grid = options if options is not None else option_grid(game)
    for opts in grid:
        try:
            pz_api_test(package.env(**opts), num_cycles=cycles)
            pz_api_test(package.raw_env(**opts), num_cycles=cycles // 2)
            seed_test(lambda opts=opts: package.env(**opts), num_cycles=cycles // 2)
            check_spaces_and_a_whole_game(package, game, opts)
            assert_state_roundtrip(package.raw_env(**opts))
            assert_aec_matches_vector(package, opts, num_envs=3, steps=steps)
        except AssertionError as exc:
            raise AssertionError(f"{name} {opts}: {exc}") from exc
    return len(grid)


def check_spaces_and_a_whole_game(package: ModuleType, game: Any, opts: dict[str, Any]) -> None:
    """Spaces and dtypes, single and batched, and one whole random game in the AEC env of
    ``package`` (a game package or :func:`~tabletop_core.envs.factories.game_envs`) under
    ``opts``: every agent terminated within ``max_episode_steps``, finite returns.

    Raises:
        AssertionError: at the first failure.
    """
    env = package.raw_env(**opts)
    env.reset(seed=5)
    rng = np.array([seed_word(5)], np.uint64)
    steps = 0
    while env.agents and not all(env.terminations[a] or env.truncations[a] for a in env.agents):
        agent = env.agent_selection
        o = env.observe(agent)
        space = env.observation_space(agent)["observation"]
        assert o["observation"].dtype == np.float32 and space.contains(o["observation"]), agent
        assert o["action_mask"].dtype == np.int8 and o["action_mask"].any(), agent
        env.step(int(sample_legal(rng, 0, o["action_mask"])))
        steps += 1
        assert steps <= game.max_episode_steps, "the game did not end within max_episode_steps"
    assert all(env.terminations.values()) and not any(env.truncations.values())
    assert all(np.isfinite(r) for r in env._cumulative_rewards.values())
    venv = package.vector_env(4, **opts)
    obs, info = venv.reset(seed=9)
    p = len(env.possible_agents)
    for _ in range(3):
        assert obs.dtype == np.float32 and obs.shape == (4, env.layout.dim)
        assert (obs >= 0).all() and (obs <= 1).all()
        mask = info["action_mask"]
        assert mask.dtype == np.int8 and mask.shape == (4, game.num_actions) and mask.any(axis=1).all()
        obs, rew, term, trunc, info = venv.step(venv.sample_actions())
        assert rew.dtype == np.float32 and rew.shape == (4, p)
        assert term.dtype == np.bool_ and trunc.dtype == np.bool_
