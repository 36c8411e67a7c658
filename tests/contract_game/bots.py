"""Leduc hold'em's bots, as kernels (``bot_id`` = index in :data:`BOT_NAMES`).

    random  uniform over the legal actions (read from the state, not the mask)
    strong  scripted: raise with a pair or a king, call with a queen; a jack checks
            and folds to a bet

A bot reads only what its seat observes: its own card and the public table.
"""

from __future__ import annotations

import numpy as np

from tabletop_core.kernel.jit import kernel
from tabletop_core.kernel.rng import randint

from .rules import facing_bet_r, is_legal_r
from .spec import CALL, FOLD, NUM_ACTIONS, RAISE

BOT_NAMES = ("random", "strong")
RANDOM_BOT, STRONG_BOT = 0, 1


@kernel
def random_bot_r(e, rng, r):
    """The ``k``-th legal action in id order, ``k = randint(rng, r, count)``; -1 once the
    hand is over."""
    n = 0
    for a in range(NUM_ACTIONS):
        n += is_legal_r(e, a)
    if n == 0:
        return -1
    k = randint(rng, r, n)
    for a in range(NUM_ACTIONS):
        if is_legal_r(e, a):
            if k == 0:
                return a
            k -= 1
    return -1


@kernel
def strong_bot_r(e):
    """Raise with a pair or a king (call once no raise is left), call with a queen, and
    with a jack check or fold to a bet."""
    if e.status != 0:
        return -1
    seat = np.int64(e.current)
    rank = np.int64(e.private[seat]) // 2
    paired = e.public >= 0 and rank == np.int64(e.public) // 2
    if paired or rank == 2:
        return RAISE if e.raises < e.cfg_max_raises else CALL
    if rank == 1 or not facing_bet_r(e):
        return CALL
    return FOLD


@kernel
def bot_action_r(e, bot, masks, row, rng, r):
    """Hook ``bot_action``: bot ``bot``'s action for the acting seat (``masks[row]`` is
    not read: both bots read the state)."""
    if bot == STRONG_BOT:
        return strong_bot_r(e)
    return random_bot_r(e, rng, r)


@kernel
def bot_move_r(e, bot, masks, row, rng, r):
    """Hook ``bot_move`` (``masks[row]`` scratch): the same as :func:`bot_action_r`."""
    return bot_action_r(e, bot, masks, row, rng, r)
