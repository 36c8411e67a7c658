"""Shikokushi Koikoi's hooks for the batch loops of :mod:`tabletop_core.contract.loops`: the rules
kernels of ``rules.py``, ``observe.py`` and ``bots.py`` on the env's record, nothing
else."""

from __future__ import annotations

from tabletop_core.contract.game import Hooks
from tabletop_core.kernel.jit import kernel

from . import bots, observe, resample, rules
from .rules import apply_action_r
from .spec import NUM_ACTIONS


@kernel(inline="always")
def step_r(e, action, acc, row):
    """Play ``action``; every seat's chip change of the step is its reward."""
    apply_action_r(e, action)
    for k in range(e.cfg_players):
        acc[row, k] += e.delta[k]


@kernel(inline="always")
def rollout_phase_r(e):
    """The round being played: the search scores a move by the round's chip changes
    (``docs/search-bot.md``)."""
    return e.round


HOOKS = Hooks.from_names(
    NUM_ACTIONS, globals(), rules, observe, bots, resample, random_move=bots.random_bot_r
)
"""Koikoi's hooks, declared in :data:`koikoi_env.game.GAME`."""
