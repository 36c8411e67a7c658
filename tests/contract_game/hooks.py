"""GLUE (today's core API): Leduc's hook kernels registered for :mod:`tabletop_core.loops`.
Every kernel lives in rules / observe / bots; this file only names them."""

from __future__ import annotations

from tabletop_core import loops

from .bots import bot_action_r, bot_move_r
from .observe import observe_r
from .rules import deal_r, is_legal_r, legal_mask_r, step_r
from .spec import NUM_ACTIONS
from .state import STATE_DTYPE

HOOKS = {
    "deal": deal_r,
    "step": step_r,
    "write_mask": legal_mask_r,
    "observe": observe_r,
    "bot_action": bot_action_r,
    "bot_move": bot_move_r,
    "is_legal": is_legal_r,
}
loops.register(STATE_DTYPE, NUM_ACTIONS, HOOKS)
