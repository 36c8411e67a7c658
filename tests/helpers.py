"""Checks and builders the game test files share, so that each game's tests state only what
is that game's own: the bad-input contract of the AEC and vector envs, the readable
batch-of-one kernel table the scripted rule scenarios play on, and a learner's episode."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np
import pytest

from tabletop_core.envs.aec import ActionOutOfBoundsError
from tabletop_core.tools.testing import at

BAD_ACTIONS = [-1, 10**9, 2.5, "3", None, True, np.array([1, 2])]
"""Actions every AEC env rejects as out of range or of the wrong type (the game's
``NUM_ACTIONS``, the first one out of range, is added by each test)."""


def option_id(options: dict[str, Any]) -> str:
    """A pytest id for one option set: ``"num_players=3,mode=long"``."""
    return ",".join(f"{k}={v}" for k, v in options.items())


def assert_out_of_range_action_rejected(package: ModuleType, bad: Any, **options: Any) -> None:
    """Stepping ``bad`` raises ActionOutOfBoundsError (a ValueError and an AssertionError that
    names the action) from both the wrapped and the raw AEC env, changes nothing, and the env
    plays on."""
    for make in (package.env, package.raw_env):
        env = make(**options)
        env.reset(seed=0)
        before = env.unwrapped.get_state()
        with pytest.raises(ActionOutOfBoundsError) as err:
            env.step(bad)
        assert isinstance(err.value, ValueError) and isinstance(err.value, AssertionError)
        assert "action" in str(err.value)
        np.testing.assert_array_equal(env.unwrapped.get_state()["state"], before["state"])
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))


def assert_illegal_move_ends_the_episode(env: Any, action: int) -> str:
    """On the wrapped AEC env, an illegal ``action`` warns, ends the episode for every agent and
    gives -1 to the offender, 0 to the others. Returns the offender."""
    offender = env.agent_selection
    with pytest.warns(UserWarning, match="Illegal move"):
        env.step(action)
    assert all(env.terminations.values())
    assert env._cumulative_rewards[offender] == -1
    assert all(v == 0 for a, v in env._cumulative_rewards.items() if a != offender)
    return offender


def assert_vector_env_rejects_bad_actions(
    venv: Any, good: np.ndarray, env_index: int, illegal: int, num_actions: int, match: str | None = None
) -> None:
    """Each bad batch of actions raises a ValueError and leaves the vector env's state as it
    was: ``illegal`` in env ``env_index`` (message ``match``, by default naming the env), too
    few actions, float actions and an action past ``num_actions``. ``good`` is a legal batch."""
    before = venv.get_state()["state"].copy()
    bad = good.copy()
    bad[env_index] = illegal
    for actions, message in (
        (bad, match or f"env {env_index}"),
        (good[:-1], "shape"),
        (good.astype(np.float32), "integers"),
        (np.where(np.arange(len(good)) == env_index, num_actions + 4, good), "out of range"),
    ):
        with pytest.raises(ValueError, match=message):
            venv.step(actions)
        np.testing.assert_array_equal(venv.get_state()["state"], before)


def play_learner_episode(env: Any, seed: int) -> tuple[float, dict]:
    """Plays one episode of a single-agent LearnerEnv with uniformly random legal actions
    (every step must offer one); returns the learner's summed reward and the last info."""
    obs, info = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    total = 0.0
    while True:
        assert info["action_mask"].any()
        obs, r, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        total += r
        if term or trunc:
            return total, info


class KernelTable:
    """A batch-of-one kernel State ``s`` (shape (1,)) of one game, read and checked through
        that game's rules module: the base of each game's scripted-scenario ``Table``.

        Subclasses set ``rules`` (the game's rules module), ``num_actions`` and, to read
    ``status``, ``status_type`` (the game's Status enum); with
        ``check_each_action`` the legal set is also checked action by action against
        ``is_legal_r``."""

    rules: ModuleType
    num_actions: int
    status_type: type
    check_each_action = True

    def __init__(self, state: np.ndarray):
        self.s = state

    @property
    def e(self):
        return self.s[0]

    def legal(self) -> set[int]:
        """The legal actions, from ``legal_mask_r`` (whose count must match)."""
        mask = np.zeros(self.num_actions, np.int8)
        n = at(self.rules.legal_mask_r, self.s, 0, mask[None, :], 0)
        legal = set(np.flatnonzero(mask).tolist())
        assert n == len(legal)
        if self.check_each_action:
            for a in range(self.num_actions):
                assert bool(at(self.rules.is_legal_r, self.s, 0, a)) == (a in legal)
        return legal

    @property
    def current(self) -> int:
        return int(self.e["current"])

    @property
    def status(self):
        return self.status_type(int(self.e["status"]))


def render_test_for(package: ModuleType, options: dict[str, Any]) -> None:
    """PettingZoo's ``render_test`` on the game ``package``'s wrapped AEC env with ``options``."""
    from pettingzoo.test import render_test

    render_test(lambda render_mode=None: package.env(render_mode=render_mode, **options))


def deals_against_shuffle_prefix(s: np.ndarray, deal: Any, first_card: int, num_cards: int, deals: int = 3):
    """Deals ``deals`` times in a row on the batch-of-one State ``s`` with the kernel ``deal``
    (called as ``deal(s, 0)``) and checks that each deck is exactly what
    ``tabletop_core.kernel.rng.shuffle_prefix`` makes of the cards ``first_card`` ..
    ``first_card + num_cards - 1`` from the state's rng word, which it leaves where
    ``shuffle_prefix`` does (consecutive deals continue the same stream). A generator: the
    checks run as it is iterated; it yields each deck (int8, shape (num_cards,))."""
    from tabletop_core.kernel.rng import shuffle_prefix

    for _ in range(deals):
        word = s["rng"].copy()
        deck = np.arange(first_card, first_card + num_cards, dtype=np.int8)
        shuffle_prefix(word, 0, deck, num_cards)
        at(deal, s, 0)
        assert np.array_equal(s["deck"][0], deck)
        assert s["rng"][0] == word[0]
        yield deck


def assert_observe_writes_every_entry(observe_r: Any, s: np.ndarray, num_players: int, dim: int) -> None:
    """For every seat of the batch-of-one State ``s``, the kernel ``observe_r`` writes the
    same ``dim`` observation entries into a zeroed buffer and a NaN-filled one: it leaves no
    entry unwritten."""
    for seat in range(num_players):
        clean = np.zeros(dim, np.float32)
        dirty = np.full(dim, np.nan, np.float32)
        at(observe_r, s, 0, seat, clean[None, :], 0)
        at(observe_r, s, 0, seat, dirty[None, :], 0)
        assert np.array_equal(clean, dirty)
