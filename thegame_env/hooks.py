"""The Game's hooks for the batch loops of :mod:`tabletop_core.contract.loops`: the rules kernels
of ``rules.py``, ``observe.py`` and ``bots.py`` on the env's record, nothing else."""

from __future__ import annotations

from tabletop_core.contract.game import Hooks
from tabletop_core.kernel.jit import kernel

from .bots import bot_action_r, random_bot_r
from .observe import observe_r
from .resample import resample_hidden_r
from .rules import apply_action_r, deal_r, is_legal_r, legal_mask_r, step_reward_r
from .spec import NUM_ACTIONS


@kernel(inline="always")
def step(e, action, acc, row):
    """Play ``action``; the team's reward of the step goes to every seat (cooperative)."""
    r = step_reward_r(e, apply_action_r(e, action))
    for k in range(e.cfg_players):
        acc[row, k] += r


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
)
"""The Game's hooks, declared in :data:`thegame_env.game.GAME`."""
