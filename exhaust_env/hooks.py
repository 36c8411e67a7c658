"""Exhaust's hooks for the batch loops of :mod:`tabletop_core.contract.loops`: the rules kernels of
``rules.py``, ``observe.py`` and ``bots.py`` on the env's record, nothing else. The legal
actions are two words (:func:`rules.legal_words_r`): the random bot draws from them
without a mask."""

from __future__ import annotations

from tabletop_core.contract.game import Hooks
from tabletop_core.kernel.jit import kernel

from . import bots, observe, resample, rules
from .bots import mask_words_row, random_from_words
from .rules import add_rewards_r, apply_action_r, legal_words_r, write_mask_row
from .spec import NUM_ACTIONS


@kernel(inline="always")
def step_r(e, action, acc, row):
    """Play ``action`` (a round lost on the way is dealt again); the episode's outcome is
    the reward of the step that ends it."""
    apply_action_r(e, action)
    add_rewards_r(e, acc, row)


@kernel(inline="always")
def legal_mask_r(e, masks, row):
    w0, w1 = legal_words_r(e)
    return write_mask_row(w0, w1, masks, row)


@kernel(inline="always")
def random_on_mask_r(masks, row, rng, r):
    """The random bot's draw from the two words of the mask row (vector loads)."""
    w0, w1 = mask_words_row(masks, row)
    return random_from_words(w0, w1, rng, r)


@kernel(inline="always")
def random_move_r(e, rng, r):
    """The random bot's draw from the legal words, without a mask."""
    w0, w1 = legal_words_r(e)
    return random_from_words(w0, w1, rng, r)


HOOKS = Hooks.from_names(NUM_ACTIONS, globals(), rules, observe, bots, resample)
"""Exhaust's hooks, declared in :data:`exhaust_env.game.GAME`."""
