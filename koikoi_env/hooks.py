"""Shikokushi Koikoi's hooks for the batch loops of :mod:`tabletop_core.loops`: the rules
kernels of ``rules.py``, ``observe.py`` and ``bots.py`` on the env's record, nothing
else."""

from __future__ import annotations

from tabletop_core import loops
from tabletop_core.jit import kernel

from .bots import RANDOM_BOT, bot_action_r, random_bot_r
from .observe import observe_r
from .rules import apply_action_r, deal_r, is_legal_r, legal_mask_r
from .spec import NUM_ACTIONS
from .state import STATE_DTYPE


@kernel(inline="always")
def step(e, action, acc, row):
    """Play ``action``; every seat's chip change of the step is its reward."""
    apply_action_r(e, action)
    for k in range(e.cfg_players):
        acc[row, k] += e.delta[k]


@kernel(inline="always")
def bot_action(e, bot, masks, row, rng, r):
    """The bot's action, ``masks[row]`` holding the acting seat's mask."""
    if bot == RANDOM_BOT:
        return random_bot_r(e, rng, r)
    return bot_action_r(bot, e, masks[row], rng, r)


@kernel(inline="always")
def bot_move(e, bot, masks, row, rng, r):
    """The bot's action, ``masks[row]`` scratch (the random bot reads no mask)."""
    if bot == RANDOM_BOT:
        return random_bot_r(e, rng, r)
    legal_mask_r(e, masks, row)
    return bot_action_r(bot, e, masks[row], rng, r)


deal, write_mask, observe, is_legal = deal_r, legal_mask_r, observe_r, is_legal_r
loops.register(STATE_DTYPE, NUM_ACTIONS, globals())
