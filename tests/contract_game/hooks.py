"""Leduc hold'em's hooks for the batch loops: the kernels of rules, observe and bots,
named once (declared in :data:`tests.contract_game.game.GAME`)."""

from __future__ import annotations

from tabletop_core.contract.game import Hooks

from .bots import bot_action_r, bot_move_r
from .observe import observe_r
from .rules import deal_r, is_legal_r, legal_mask_r, step_r

HOOKS = Hooks(
    deal=deal_r,
    step=step_r,
    legal_mask=legal_mask_r,
    observe=observe_r,
    bot_action=bot_action_r,
    bot_move=bot_move_r,
    is_legal=is_legal_r,
)
