"""The Game's hooks for the batch loops of :mod:`tabletop_core.contract.loops`: the rules kernels
of ``rules.py``, ``observe.py`` and ``bots.py`` on the env's record, nothing else."""

from __future__ import annotations

from tabletop_core.contract.game import Hooks
from tabletop_core.kernel.jit import kernel

from . import bots, observe, resample, rules
from .rules import apply_action_r, step_reward_r
from .spec import NUM_ACTIONS


@kernel(inline="always")
def step_r(e, action, acc, row):
    """Play ``action``; the team's reward of the step goes to every seat (cooperative)."""
    r = step_reward_r(e, apply_action_r(e, action))
    for k in range(e.cfg_players):
        acc[row, k] += r


HOOKS = Hooks.from_names(
    NUM_ACTIONS, globals(), rules, observe, bots, resample, random_move=bots.random_bot_r
)
"""The Game's hooks, declared in :data:`thegame_env.game.GAME`."""
