"""The one conformance test every game passes: ``tabletop_core.tools.testing.api_test`` over
every option (random play single and batched, dtypes, spaces, a whole game, save/restore,
AEC ≡ vector). A new game lists itself under the ``tabletop_rl.games`` entry points and passes this."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from pettingzoo.utils.env_logger import EnvLogger
from pettingzoo.utils.wrappers import AssertOutOfBoundsWrapper, OrderEnforcingWrapper, TerminateIllegalWrapper

from tabletop_core.contract.catalog import game_names, load_game
from tabletop_core.envs.factories import game_envs
from tabletop_core.tools.testing import api_test, option_grid


@pytest.mark.slow
@pytest.mark.parametrize("name", game_names())
def test_every_game_passes_the_api_test_over_every_option(name):
    assert api_test(name) == len(option_grid(load_game(name)))


def test_option_grid_takes_every_option_to_each_value():
    grid = option_grid(load_game("thegame"))
    assert grid[0] == {}
    assert {"on_fire": True} in grid and {"reward": "win"} in grid
    assert {"level": 1} in grid and {"level": 2} in grid
    assert {"num_players": 1} in grid and {"num_players": 5} in grid


# --- env() against PettingZoo's stock wrapper stack --------------------------------------------
# env() wraps raw_env in LeanChecks, one layer with the checks of PettingZoo's
# OrderEnforcingWrapper, AssertOutOfBoundsWrapper and TerminateIllegalWrapper. The same calls
# go through both, and each must end the same way: accepted, refused with an error, or the
# episode terminated; afterwards the bookkeeping an agent reads must be the same.

_BEFORE_RESET = [
    ("step", lambda env: env.step(0)),
    ("observe", lambda env: env.observe(env.possible_agents[0])),
    ("last", lambda env: env.last()),
    ("state", lambda env: env.state()),
    ("agent_iter", lambda env: env.agent_iter()),
    ("render", lambda env: env.render()),
    *[
        (name, lambda env, name=name: getattr(env, name))
        for name in (
            "agents",
            "agent_selection",
            "num_agents",
            "rewards",
            "terminations",
            "truncations",
            "infos",
        )
    ],
]


def _stock(raw_env):
    env = TerminateIllegalWrapper(raw_env(), illegal_reward=-1)
    return OrderEnforcingWrapper(AssertOutOfBoundsWrapper(env))


def _outcome(call, env):
    """``("accepted", warned)`` or ``("error", kind, warned)``: ``kind`` "order/bounds" for
    the errors PettingZoo's wrappers raise for a call before reset or an action out of
    range (AssertionError; AttributeError for a read before reset), "other" otherwise.
    ``warned``: a warning was given (LeanChecks warns with ``warnings``, the stock wrappers
    through PettingZoo's ``EnvLogger``)."""
    EnvLogger.flush()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            call(env)
        except (AssertionError, AttributeError):
            return ("error", "order/bounds", bool(caught or EnvLogger.mqueue))
        except Exception:  # noqa: BLE001 - any other refusal counts the same
            return ("error", "other", bool(caught or EnvLogger.mqueue))
    return ("accepted", bool(caught or EnvLogger.mqueue))


def _book(env):
    """What an agent reads after a call (the acting agent's observation included while the
    episode runs; once it is over LeanChecks shows an all-zero mask, where the stock
    wrappers leave the raw env showing the offender's last one)."""
    u = env.unwrapped
    seen = None
    if u.agents and not all(u.terminations.values()):
        obs = u.observe(u.agent_selection)
        seen = (obs["observation"].tobytes(), obs["action_mask"].tobytes())
    return (
        list(u.agents),
        u.agent_selection if u.agents else None,
        dict(u.rewards),
        dict(u._cumulative_rewards),
        dict(u.terminations),
        dict(u.truncations),
        seen,
    )


def _both(envs, call):
    """Run ``call`` on the lean and the stock env; assert the same outcome and bookkeeping."""
    lean, stock = (_outcome(call, env) for env in envs)
    assert lean == stock
    assert _book(envs[0]) == _book(envs[1])
    return lean


def _legal(env, rng):
    """A random legal action of the acting agent, or None for a dead one."""
    u = env.unwrapped
    agent = u.agent_selection
    if u.terminations[agent] or u.truncations[agent]:
        return None
    return int(rng.choice(u.legal_actions()))


def _play_to_the_end(envs, seed):
    rng = np.random.default_rng(seed)
    while envs[0].unwrapped.agents and not all(envs[0].unwrapped.terminations.values()):
        action = _legal(envs[0], rng)
        assert _both(envs, lambda env, a=action: env.step(a)) == ("accepted", False)


@pytest.mark.parametrize("name", game_names())
def test_env_refuses_and_accepts_what_the_stock_wrappers_do(name):
    """``env()`` (LeanChecks) and raw_env under PettingZoo's three stock wrappers agree on
    calls before reset, actions out of range, illegal actions and calls after the end."""
    package = game_envs(load_game(name))
    envs = (package.env(), _stock(package.raw_env))
    for what, call in _BEFORE_RESET:
        lean, stock = (_outcome(call, env) for env in envs)
        assert lean == stock == ("error", "order/bounds", False), (what, lean, stock)
    for env in envs:
        env.reset(seed=7)
    num_actions = envs[0].unwrapped._num_actions
    # out of range (and wrong types): refused, nothing changes; then legal actions are taken
    for bad in (-1, num_actions, num_actions + 7, np.int64(-3), 2.5, "1", None, np.array([0, 1])):
        assert _both(envs, lambda env, a=bad: env.step(a)) == ("error", "order/bounds", False), bad
    _play_to_the_end(envs, seed=7)
    # after the end: a dead agent may only pass None; once every agent is gone a step warns
    assert _both(envs, lambda env: env.step(0)) == ("error", "other", False)
    while envs[0].unwrapped.agents:
        assert _both(envs, lambda env: env.step(None)) == ("accepted", False)
    assert _both(envs, lambda env: env.step(0)) == ("accepted", True)
    assert _both(envs, lambda env: env.step(num_actions + 1)) == ("accepted", True)
    # an illegal action (in range) ends the episode with a warning, the offender losing
    for env in envs:
        env.reset(seed=11)
    rng = np.random.default_rng(11)
    for _ in range(3):
        action = _legal(envs[0], rng)
        _both(envs, lambda env, a=action: env.step(a))
    illegal = np.flatnonzero(envs[0].unwrapped.observe(envs[0].agent_selection)["action_mask"] == 0)
    if illegal.size:
        assert _both(envs, lambda env, a=int(illegal[0]): env.step(a)) == ("accepted", True)
        assert all(envs[0].unwrapped.terminations.values())
        assert _both(envs, lambda env: env.step(1)) == ("error", "other", False)
        while envs[0].unwrapped.agents:
            assert _both(envs, lambda env: env.step(None)) == ("accepted", False)
