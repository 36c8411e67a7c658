"""Helpers shared by the ``examples/rl_*.py`` training scripts (no RL framework needed).

* :func:`load` — a game's GameDef and package by name (``--game thegame``).
* :func:`bot_baseline` / :func:`evaluate_policy` — mean episode return of a scripted bot
  (compiled arena) and of a policy (``LearnerVectorEnv``) on the same seeds.

For The Game with ``reward="cards"`` the return is ``98 - cards left``. Observations need
no scaling: every game's observation lies in [0, 1] (``observation_space`` is ``Box(0, 1)``).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

import numpy as np

from tabletop_core.contract.catalog import load_game
from tabletop_core.envs.single_agent import LearnerVectorEnv
from tabletop_core.tools.arena import run_match


def load(name: str):
    """``(GameDef, package module)`` of game ``name`` (``thegame``, ...)."""
    game = load_game(name)
    return game, importlib.import_module(load_game(name).package)


def bot_baseline(game, bot: str, episodes: int, seed: int, **options) -> np.ndarray:
    """Episode returns of seat 0 with ``bot`` in every seat; game g is seeded ``seed + g``."""
    result = run_match(game, bot, episodes, seed=seed, **options)
    return result.returns[:, 0]


def evaluate_policy(
    game,
    act: Callable[[np.ndarray, np.ndarray], np.ndarray],
    episodes: int,
    seed: int,
    seat=None,
    opponents=None,
    **options,
) -> np.ndarray:
    """Returns of ``episodes`` games played by ``act(obs (B, D), mask (B, A) bool) -> (B,)``.

    Game g is dealt with seed ``seed + g`` (as :func:`bot_baseline` and the arena deal it);
    every game runs in its own env of a ``LearnerVectorEnv`` and its first episode counts.
    """
    venv = LearnerVectorEnv(game, episodes, seat=seat, opponents=opponents, **options)
    obs, info = venv.reset(seed=seed)
    mask = info["action_mask"].astype(bool)
    total = np.zeros(episodes)
    done = np.zeros(episodes, bool)
    while not done.all():
        actions = np.asarray(act(obs, mask), np.int64)
        obs, rewards, term, trunc, info = venv.step(actions)
        total += np.where(done, 0.0, rewards)
        done |= term | trunc
        mask = info["action_mask"].astype(bool)
    return total
