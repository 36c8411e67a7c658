"""Koikoi's determinizations: what one seat cannot see, drawn again (``docs/rules/koikoi.md``,
"Hidden information and resampling").

Public to every seat: the field, every captured pile, the card awaiting a choice, every
hand's size, the stock's size, chips, yaku and koi-koi counts (:mod:`koikoi_env.observe`).
Hidden from ``seat``: the cards :func:`koikoi_env.rules.unseen_by` names (the stock and the
other hands), which of them lies where, and the stock's order. No rule ties a hidden card
to a place (every hand card is playable, there is no redeal), so the unseen cards are
dealt again by one uniform shuffle into the stock (in order) and the other hands (at
their sizes).
"""

from __future__ import annotations

import numpy as np

from tabletop_core.kernel.jit import kernel
from tabletop_core.kernel.rng import next_word, shuffle_word

from .rules import sync_bits_r, unseen_by
from .spec import LOC_HAND, LOC_STOCK, MAX_PLAYERS, NUM_CARDS

__all__ = ["resample_hidden_r"]


@kernel
def resample_hidden_r(e, seat, w):
    """Deal the cards ``seat`` cannot see in the record ``e`` again, uniformly (the module
    docstring), draw the record's generator word ``e.rng`` afresh, and return the next
    generator word after ``w``.

    The stock ``deck[deck_pos:]`` takes the first shuffled cards, top first; the other
    hands (seat order) the rest. In ``deck[:deck_pos]`` (the cards dealt, flipped and drawn
    so far) each card that left a hand is replaced by the card that took its place, so the
    deck stays a permutation with the stock at its end. ``hand_bits`` follow ``loc``.
    """
    seat = np.int64(seat)
    pool = np.empty(NUM_CARDS, np.int8)
    old_held = np.empty(NUM_CARDS, np.int8)
    m = 0
    h = 0
    for c in range(NUM_CARDS):
        loc = e.loc[c]
        if unseen_by(loc, seat):
            pool[m] = c
            m += 1
            if loc != LOC_STOCK:
                old_held[h] = c
                h += 1
    x = shuffle_word(np.uint64(w), pool, m)
    pos = np.int64(e.deck_pos)
    k = 0
    for j in range(pos, NUM_CARDS):
        e.deck[j] = pool[k]
        e.loc[pool[k]] = LOC_STOCK
        k += 1
    remap = np.full(NUM_CARDS, -1, np.int8)
    start = k
    for p in range(MAX_PLAYERS):
        if p < e.cfg_players and p != seat:
            for _ in range(e.hand_size[p]):
                e.loc[pool[k]] = LOC_HAND + p
                k += 1
    for j in range(h):
        remap[old_held[j]] = pool[start + j]
    for j in range(pos):
        c = e.deck[j]
        if remap[c] >= 0:
            e.deck[j] = remap[c]
    sync_bits_r(e)
    x, z = next_word(x)
    e.rng = z
    return x
