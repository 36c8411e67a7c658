"""Scripted bots for The Game, as kernels so a bot match never leaves compiled code.

Bot protocol (shared by every game): ``bot_action(bot_id, s, i, mask, rng, r) -> action``
where ``s`` is the State record array, ``i`` the env index, ``mask`` the (393,) int8
action mask of the acting seat, ``rng`` a uint64 array of bot generator words and ``r``
the index of the word to use. A bot reads only what the acting seat observes: its own
hand and the public table (tested by the hidden-information tests).

Bots:
    random  uniform over legal actions.
    strong  see :func:`strong_bot`.
"""

from __future__ import annotations

import numpy as np

from tabletop_core.jit import kernel
from tabletop_core.rng import sample_legal

from .rules import can_place, min_plays_now
from .spec import END_TURN, MIN_CARD, NUM_CARDS, NUM_PILES

BOT_NAMES = ("random", "strong")
BOT_IDS = {name: k for k, name in enumerate(BOT_NAMES)}


@kernel
def random_bot(s, i, mask, rng, r):
    """Uniform over the legal actions in ``mask``."""
    return sample_legal(rng, r, mask)


@kernel
def strong_bot(s, i, mask, rng, r):
    """Greedy by gap: play the card/pile with the smallest jump, then stop at the minimum
    unless a backwards trick or a gap of at most 2 is available."""
    e = s[i]
    seat = e.current
    best = -1
    best_cost = 1 << 30
    for k in range(e.hand_size[seat]):
        card = np.int64(e.hand[seat, k])
        for pile in range(NUM_PILES):
            top = np.int64(e.piles[pile])
            if not can_place(top, pile, card):
                continue
            cost = card - top if pile < 2 else top - card
            if cost < best_cost:
                best_cost = cost
                best = pile * NUM_CARDS + card - MIN_CARD
    owed = e.plays_this_turn < min_plays_now(s, i)
    if best >= 0 and (owed or best_cost <= 2):
        return best
    if mask[END_TURN] != 0:
        return END_TURN
    return best


@kernel
def bot_action(bot_id, s, i, mask, rng, r):
    """Dispatch to the bot numbered ``bot_id`` (index in :data:`BOT_NAMES`)."""
    if bot_id == 1:
        return strong_bot(s, i, mask, rng, r)
    return random_bot(s, i, mask, rng, r)
