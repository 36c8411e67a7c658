"""Shikokushi Koikoi's hooks for the batch loops of :mod:`tabletop_core.contract.loops`: the rules
kernels of ``rules.py``, ``observe.py`` and ``bots.py`` on the env's record, nothing
else."""

from __future__ import annotations

from tabletop_core.contract.game import Hooks
from tabletop_core.kernel.jit import kernel

from .bots import bot_action_r, random_bot_r
from .observe import observe_r
from .resample import resample_hidden_r
from .rules import apply_action_r, deal_r, is_legal_r, legal_mask_r
from .spec import NUM_ACTIONS


@kernel(inline="always")
def step(e, action, acc, row):
    """Play ``action``; every seat's chip change of the step is its reward."""
    apply_action_r(e, action)
    for k in range(e.cfg_players):
        acc[row, k] += e.delta[k]


@kernel(inline="always")
def rollout_phase(e):
    """The round being played: the search scores a move by the round's chip changes
    (``docs/search-bot.md``)."""
    return e.round


HOOKS = Hooks(
    num_actions=NUM_ACTIONS,
    deal=deal_r,
    step=step,
    legal_mask=legal_mask_r,
    observe=observe_r,
    bot_action=bot_action_r,
    random_move=random_bot_r,
    is_legal=is_legal_r,
    resample_hidden=resample_hidden_r,
    rollout_phase=rollout_phase,
)
"""Koikoi's hooks, declared in :data:`koikoi_env.game.GAME`."""
