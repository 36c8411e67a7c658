"""Bad input to the envs gets a clear error and changes nothing: actions out of range or of
the wrong type, calls before reset, options, seeds and bot names of the wrong type."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import BAD_ACTIONS, assert_out_of_range_action_rejected

import exhaust_env
import thegame_env
from tabletop_core.envs.aec import ResetNeededError


@pytest.mark.parametrize(
    "package, bad", [(p, bad) for p in (thegame_env, exhaust_env) for bad in (p.NUM_ACTIONS, *BAD_ACTIONS)]
)
def test_out_of_range_or_wrong_type_action(package, bad):
    assert_out_of_range_action_rejected(package, bad, num_players=2)


def test_raw_env_step_and_observe_before_reset():
    env = thegame_env.raw_env()
    with pytest.raises(ValueError, match="reset"):
        env.step(0)
    with pytest.raises(ResetNeededError):
        env.observe("player_0")
    env.reset(seed=0)
    env.step(int(env.legal_actions()[0]))


@pytest.mark.parametrize("level", [1.0, 2.0, True, "1"])
def test_thegame_level_must_be_an_int(level):
    with pytest.raises(ValueError, match="level"):
        thegame_env.raw_env(level=level)
    with pytest.raises(ValueError, match="level"):
        thegame_env.vector_env(num_envs=2, level=level)


@pytest.mark.parametrize("seed", [[1.5, 2.5], [1, 2.5], [True, 1], 1.5, "3", [1, "2"]])
def test_vector_reset_seeds_must_be_ints(seed):
    venv = thegame_env.vector_env(num_envs=2)
    with pytest.raises(ValueError, match="seed"):
        venv.reset(seed=seed)
    venv.reset(seed=[1, np.int64(2)])


@pytest.mark.parametrize("bots", [None, 0, 1.5, ["random", 3], {"random"}])
def test_step_bots_needs_bot_names(bots):
    venv = exhaust_env.vector_env(num_envs=2)
    venv.reset(seed=0)
    before = venv.state.copy()
    with pytest.raises(ValueError, match="bot"):
        venv.step_bots(bots)
    assert np.array_equal(before, venv.state)
    with pytest.raises(ValueError, match="unknown bot"):
        venv.step_bots("nobody")
    venv.step_bots("random")


@pytest.mark.parametrize("dtype", [np.uint64, np.uint32, np.int64])
def test_huge_and_negative_actions_are_named_as_given(dtype):
    venv = thegame_env.vector_env(num_envs=3)
    venv.reset(seed=0)
    big = np.iinfo(dtype).max
    acts = np.zeros(3, dtype)
    acts[1] = big
    before = venv.state.copy()
    with pytest.raises(ValueError, match=f"env 1: action {big} is out of range"):
        venv.step(acts)
    assert np.array_equal(before, venv.state)
    with pytest.raises(ValueError, match="env 0: action -1 is out of range"):
        venv.step(np.array([-1, 0, 0]))
    env = thegame_env.raw_env()
    env.reset(seed=0)
    with pytest.raises(ValueError, match=str(2**64 - 1)):
        env.step(np.uint64(2**64 - 1))
