"""Saved states that cannot crash the process; atomic set_state (issue 17, item 1).

* the exact corruptions of the issue are refused with a ValueError naming the env, the
  field and what is allowed, and leave the env exactly as before;
* set_state is atomic for the bookkeeping too (AEC: missing ``agents``, a bogus
  ``agent_selection``; vector: missing ``sample_rng``, a wrong generator array);
* ``<game>.validate_state`` is exported, takes a ``get_state()`` dict or the State array
  and names the env index of a batch;
* property-based corruption of every field (``integrity_fuzz.py``) runs in a child
  process per game, so a segfault fails the test instead of killing the run.
"""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import exhaust_env
import exitnow_envs
import koikoi_env
import thegame_env

HERE = pathlib.Path(__file__).resolve().parent
PACKAGES = {"thegame": thegame_env, "exhaust": exhaust_env, "koikoi": koikoi_env, "exitnow": exitnow_envs}


def _aec_snapshot(env):
    return (
        env._state.copy(),
        env._obs.copy(),
        env._mask.copy(),
        env.agent_selection,
        list(env.agents),
        dict(env._cumulative_rewards),
        env._done,
    )


def _assert_same_aec(a, b):
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1]) and np.array_equal(a[2], b[2])
    assert a[3:] == b[3:]


def _refused(env, saved, *words):
    before = _aec_snapshot(env)
    with pytest.raises(ValueError) as info:
        env.set_state(saved)
    _assert_same_aec(before, _aec_snapshot(env))
    for w in words:
        assert w in str(info.value), str(info.value)
    return str(info.value)


# --- the exact cases ---------------------------------------------------------------------
@pytest.mark.parametrize(
    "edit, field",
    [
        (lambda s: s["hand"].__setitem__((0, 0, 0), 0), "hand"),
        (lambda s: s["hand"].__setitem__((0, 0, 0), -128), "hand"),
        (lambda s: s["hand"].__setitem__((0, 0, 0), 120), "hand"),
        (lambda s: s["hand_size"].__setitem__((0, 0), 100), "hand_size"),
        (lambda s: s.__setitem__("deck_pos", -1), "deck_pos"),
        (lambda s: s.__setitem__("current", 9), "current"),
        (lambda s: s.__setitem__("status", 7), "status"),
        (lambda s: s["piles"].__setitem__((0, 0), 120), "piles"),
    ],
)
def test_thegame_corrupted_states_are_refused(edit, field):
    env = thegame_env.raw_env(num_players=2)
    env.reset(seed=5)
    s = env.get_state()
    edit(s["state"])
    msg = _refused(env, s, "env 0", field, "allowed")
    assert msg.startswith("thegame saved state")
    a = int(env.legal_actions()[0])  # the env still plays
    env.step(a)


def test_koikoi_deck_of_120s_is_refused():
    env = koikoi_env.raw_env(num_players=2)
    env.reset(seed=5)
    s = env.get_state()
    s["state"]["deck"][0, :] = 120
    _refused(env, s, "env 0", "deck", "0..87")


@pytest.mark.parametrize("value", [4, 100, -2, -128, 127])
def test_exitnow_out_of_range_last_dir_is_refused(value):
    env = exitnow_envs.raw_env(num_humans=2)
    env.reset(seed=5)
    s = env.get_state()
    s["state"]["last_dir"][0] = value
    _refused(env, s, "env 0", "last_dir", "-1..3")


def test_exhaust_card_counts_out_of_range_are_refused():
    env = exhaust_env.raw_env(num_players=3)
    env.reset(seed=5)
    s = env.get_state()
    s["state"]["hand"][0, 0, 5] = 200
    _refused(env, s, "env 0", "hand")
    s = env.get_state()
    s["state"]["tm_pile"][0] = 3  # Time Magic cards not conserved
    _refused(env, s, "env 0", "tm_pile", "16")


def test_cards_must_be_conserved():
    env = thegame_env.raw_env(num_players=2)
    env.reset(seed=1)
    s = env.get_state()
    e = s["state"][0]
    e["hand"][0, 0] = e["deck"][97]  # a draw-pile card duplicated into a hand
    _refused(env, s, "env 0", "conserved")


# --- atomic set_state -----------------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(PACKAGES))
def test_aec_set_state_is_atomic(name):
    env = PACKAGES[name].raw_env()
    env.reset(seed=3)
    saved = env.get_state()
    env.step(int(env.legal_actions()[0]))
    env.step(int(env.legal_actions()[0]))
    s = dict(saved)
    del s["agents"]
    _refused(env, s, "agents")
    s = dict(saved)
    s["agent_selection"] = "nobody"
    _refused(env, s, "agent_selection")
    s = dict(saved)
    others = [a for a in env.possible_agents if a != saved["agent_selection"]]
    s["agent_selection"] = others[0]
    _refused(env, s, "agent_selection")
    s = dict(saved)
    s["rewards"] = {}
    _refused(env, s, "rewards")
    # a good state still loads, and plays the same as the original env did
    env.set_state(saved)
    assert env.agent_selection == saved["agent_selection"]
    env.step(int(env.legal_actions()[0]))


@pytest.mark.parametrize("name", sorted(PACKAGES))
def test_vector_set_state_is_atomic_and_names_the_env(name):
    venv = PACKAGES[name].vector_env(num_envs=4, num_threads=1)
    venv.reset(seed=3)
    saved = venv.get_state()
    for _ in range(3):
        venv.step(venv.sample_actions())

    def snap():
        return [
            x.copy() for x in (venv.state, venv._sample_rng, venv._bot_rng, venv._obs, venv._mask, venv._cur)
        ]

    def refused(s, *words):
        before = snap()
        with pytest.raises(ValueError) as info:
            venv.set_state(s)
        assert all(np.array_equal(a, b) for a, b in zip(before, snap()))
        for w in words:
            assert w in str(info.value), str(info.value)

    s = dict(saved)
    del s["sample_rng"]
    refused(s, "sample_rng")
    s = dict(saved)
    s["bot_rng"] = np.zeros(3, np.uint64)
    refused(s, "bot_rng")
    s = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in saved.items()}
    s["state"]["current"][2] = 100
    refused(s, "env 2", "current")
    with pytest.raises(ValueError, match="env 2"):
        PACKAGES[name].validate_state(s)  # the exported validation, on the dict
    with pytest.raises(ValueError, match="env 2"):
        PACKAGES[name].validate_state(s["state"])  # and on the array
    PACKAGES[name].validate_state(saved)
    venv.set_state(saved)
    venv.step(venv.sample_actions())


# --- property-based corruption, in a child process per game ---------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("name", ["thegame", "exhaust", "koikoi", "exitnow"])
def test_corrupted_fields_raise_or_play_on_never_crash(name):
    env = dict(os.environ)
    root = str(HERE.parent)
    env["PYTHONPATH"] = os.pathsep.join([root, str(HERE), env.get("PYTHONPATH", "")])
    proc = subprocess.run(
        [sys.executable, str(HERE / "integrity_fuzz.py"), name, "120"],
        capture_output=True,
        text=True,
        env=env,
        timeout=900,
    )
    tail = (proc.stdout + proc.stderr)[-4000:]
    assert proc.returncode >= 0, f"the child process crashed (signal {-proc.returncode}):\n{tail}"
    assert proc.returncode == 0, tail
    assert "rejected" in proc.stdout


def test_foreign_and_partial_states_are_refused():
    env = koikoi_env.raw_env(num_players=2)
    env.reset(seed=0)
    other = thegame_env.raw_env(num_players=2)
    other.reset(seed=0)
    _refused(env, other.get_state(), "koikoi_v1")  # another game
    three = koikoi_env.raw_env(num_players=3)
    three.reset(seed=0)
    _refused(env, three.get_state(), "options")  # other options
    s = env.get_state()
    del s["state"]
    _refused(env, s, "get_state")
    s = env.get_state()
    s["state"] = s["state"][:0]
    _refused(env, s, "shape")
    _refused(env, None, "get_state")
    venv = koikoi_env.vector_env(num_envs=2, num_players=2)
    venv.reset(seed=0)
    with pytest.raises(ValueError, match="shape"):
        venv.set_state(koikoi_env.vector_env(num_envs=3, num_players=2).get_state())
