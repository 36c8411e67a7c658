"""Exit Now's determinizations: what one seat cannot see, drawn again (``docs/rules/exitnow.md``,
"Hidden information and resampling").

Public to every seat (:mod:`exitnow_envs.observe`): the map, every piece, every human's
item count, the used pile by kind, the confiscated pile's size, the deck's size, the
phase and the acting seat. A human also sees its own items; the ghost player sees no
item. Hidden from ``seat``: the kinds of the items it does not hold (other humans' hands,
the confiscated pile, the item cards still in the deck) and the deck's order. The action
cards still in the deck are kept (every action card drawn was resolved in public); the
unseen item cards are dealt again by one uniform shuffle into the other hands and the
confiscated pile (at their sizes) and the deck's item slots, the deck is shuffled, and the
deal is kept only if the table says the same (rejection, uniform over such deals): a human
other than ``seat`` deciding on an item holds Double Dice or Move 7, one asked for a Cross
holds one, and the humans of the contact passed over before it hold none.
"""

from __future__ import annotations

import numpy as np

from tabletop_core.kernel.jit import kernel
from tabletop_core.kernel.rng import next_word, shuffle_word

from .spec import DECK, DECK_SIZE, FIRST_ITEM, I_CROSS, I_DOUBLE, I_MOVE7, MAX_HUMANS, NUM_ITEM_KINDS, Phase

__all__ = ["resample_hidden_r"]

_P_ITEM = int(Phase.ITEM)
_P_CROSS = int(Phase.CROSS)
_DECK = np.array(DECK, np.int8)
#: Deals tried before the kernel keeps the true one (the true deal is always consistent).
MAX_TRIES = 4096


@kernel
def _consistent_r(e, seat):
    """Whether the other humans hold what the phase shows (the module docstring)."""
    h = np.int64(e.current)
    if h == seat or h >= e.cfg_humans or e.status != 0:
        return True
    if e.phase == _P_ITEM:
        return e.items[h, I_DOUBLE] + e.items[h, I_MOVE7] > 0
    if e.phase == _P_CROSS:
        for j in range(e.contact_k):
            q = np.int64(e.contact_q[j])
            if q != seat and e.items[q, I_CROSS] > 0:
                return False  # it would have been asked first
        return e.items[h, I_CROSS] > 0
    return True


@kernel
def _place_r(e, seat, pool, m):
    """Deal the item kinds ``pool[:m]``: the other humans (seat order, at their counts),
    the confiscated pile, then the item slots of the deck ``deck[:deck_n]``."""
    k = 0
    for h in range(MAX_HUMANS):
        if h < e.cfg_humans and h != seat:
            n = 0
            for i in range(NUM_ITEM_KINDS):
                n += e.items[h, i]
                e.items[h, i] = 0
            for _ in range(n):
                e.items[h, pool[k]] += 1
                k += 1
    n = 0
    for i in range(NUM_ITEM_KINDS):
        n += e.confiscated[i]
        e.confiscated[i] = 0
    for _ in range(n):
        e.confiscated[pool[k]] += 1
        k += 1
    for j in range(e.deck_n):
        if e.deck[j] >= FIRST_ITEM:
            e.deck[j] = FIRST_ITEM + pool[k]
            k += 1


@kernel
def _drawn_r(e):
    """Make the drawn part ``deck[deck_n:]`` hold the item cards the deck no longer does, so
    ``deck`` stays a permutation of the 17 cards (its item slots in place, kinds kept
    where they still fit)."""
    need = np.zeros(NUM_ITEM_KINDS, np.int64)
    for j in range(DECK_SIZE):
        if _DECK[j] >= FIRST_ITEM:
            need[_DECK[j] - FIRST_ITEM] += 1
    for j in range(e.deck_n):
        if e.deck[j] >= FIRST_ITEM:
            need[e.deck[j] - FIRST_ITEM] -= 1
    free = np.zeros(DECK_SIZE, np.uint8)
    for j in range(e.deck_n, DECK_SIZE):
        c = e.deck[j]
        if c >= FIRST_ITEM:
            if need[c - FIRST_ITEM] > 0:
                need[c - FIRST_ITEM] -= 1
            else:
                free[j] = 1
    i = 0
    for j in range(e.deck_n, DECK_SIZE):
        if free[j] != 0:
            while need[i] == 0:
                i += 1
            e.deck[j] = FIRST_ITEM + i
            need[i] -= 1


@kernel
def resample_hidden_r(e, seat, w):
    """Deal the item kinds and event-deck order ``seat`` cannot see in the record ``e`` again,
    uniformly among the deals its observation allows (the module docstring), draw the
    record's generator word ``e.rng`` afresh, and return the next generator word after ``w``."""
    seat = np.int64(seat)
    items = e.items.copy()
    confiscated = e.confiscated.copy()
    deck = e.deck.copy()
    pool = np.empty(2 * DECK_SIZE, np.int8)
    m = 0
    unseen = np.zeros(NUM_ITEM_KINDS, np.int64)
    for j in range(DECK_SIZE):
        if _DECK[j] >= FIRST_ITEM:
            unseen[_DECK[j] - FIRST_ITEM] += 1
    for i in range(NUM_ITEM_KINDS):
        unseen[i] -= np.int64(e.used[i])
        if seat < e.cfg_humans:
            unseen[i] -= np.int64(e.items[seat, i])
        for _ in range(unseen[i]):
            pool[m] = i
            m += 1
    work = np.empty(2 * DECK_SIZE, np.int8)
    x = np.uint64(w)
    ok = False
    for _ in range(MAX_TRIES):
        for j in range(m):
            work[j] = pool[j]
        x = shuffle_word(x, work, m)
        _place_r(e, seat, work, m)
        e.deck[: e.deck_n].sort()  # from the set alone: the draw does not depend on the true order
        x = shuffle_word(x, e.deck, np.int64(e.deck_n))
        if _consistent_r(e, seat):
            ok = True
            break
    if not ok:
        e.items[:, :] = items
        e.confiscated[:] = confiscated
        e.deck[:] = deck
    _drawn_r(e)
    x, z = next_word(x)
    e.rng = z
    return x
