"""Exhaust's determinizations: what one seat cannot see, drawn again (``docs/rules/exhaust.md``,
"Hidden information and resampling").

Public to every seat (:mod:`exhaust_env.observe`): the combo areas and the cards on them,
every seat's hand size, Time Magic and Exhaust cards, the pile and deck sizes and, in
solo, the NPC's open hand. Hidden from ``seat``: the other seats' hands, the acting
seat's selection in progress (when it is another seat), the replenishment deck, the NPC
deck (solo) and which cards were left out of the round. The unseen cards are dealt again
by one uniform shuffle into the other hands (at their sizes), the replenishment deck and
the NPC deck (in order) and the left-out rest, and kept only if the table says the same:
an acting seat other than ``seat`` can act (else it would have lost), and a loser other
than ``seat`` could not (rejection, so the draw stays uniform over those deals). Another
seat's hidden selection restarts empty (its turn shows nothing of it).
"""

from __future__ import annotations

import numpy as np

from tabletop_core.kernel.jit import kernel
from tabletop_core.kernel.rng import next_word, shuffle_word

from .rules import _can_act, card_kind
from .spec import COPY_KIND, NPC_SEAT, NUM_CARDS, NUM_COPIES, NUM_KINDS, Mode, Status

__all__ = ["resample_hidden_r"]

_SOLO = int(Mode.SOLO)
_PLAYING = int(Status.PLAYING)
#: Deals tried before the kernel keeps the true one (the true deal is always consistent).
MAX_TRIES = 4096


@kernel
def _hidden_hand(e, seat, p):
    """Whether seat ``p``'s hand is hidden from ``seat`` (another seat; not solo's open NPC hand)."""
    return p != seat and p < e.cfg_seats and not (e.cfg_mode == _SOLO and p == NPC_SEAT)


@kernel
def _consistent_r(e, seat):
    """Whether the acting seat can act, and a loser could not, as the table shows."""
    if e.cfg_mode == _SOLO:
        return True  # the player's hand and the NPC's are open to the player
    if e.status == _PLAYING:
        return e.current == seat or _can_act(e, e.current)
    return e.loser == seat or not _can_act(e, e.loser)


@kernel
def _place_r(e, seat, pool, m, left):
    """Deal ``pool[:m]``: the other hands (seat order), the replenishment deck, the NPC deck,
    and the last ``left`` cards out of the round (``deck[NUM_CARDS - left:]``; the deck keeps
    the order of the other ids before them)."""
    k = 0
    for p in range(e.hand.shape[0]):
        if _hidden_hand(e, seat, p):
            for kind in range(NUM_KINDS):
                e.hand[p, kind] = 0
            for _ in range(e.hand_n[p]):
                e.hand[p, card_kind(pool[k])] += 1
                k += 1
    for j in range(e.repl_n):
        e.repl[j] = pool[k]
        k += 1
    for j in range(e.npc_n):
        e.npc_deck[j] = pool[k]
        k += 1
    out = np.zeros(NUM_CARDS, np.uint8)
    for j in range(m - left, m):
        out[pool[j]] = 1
    old = e.deck.copy()
    d = 0
    for j in range(NUM_CARDS):
        if out[old[j]] == 0:
            e.deck[d] = old[j]
            d += 1
    for j in range(m - left, m):
        e.deck[d] = pool[j]
        d += 1


@kernel(inline="always")
def _seen_r(e, seat):
    """Per kind, the cards ``seat`` sees: its hand, the played cards (solo: the NPC's open
    hand too); drops another acting seat's selection, which ``seat`` cannot see."""
    if e.current != seat:
        for kind in range(NUM_KINDS):
            e.sel[kind] = 0
        e.sel_n = 0
    seen = np.zeros(NUM_KINDS, np.int64)
    for kind in range(NUM_KINDS):
        seen[kind] = np.int64(e.hand[seat, kind]) + np.int64(e.played[kind])
        if e.cfg_mode == _SOLO:
            seen[kind] += np.int64(e.hand[NPC_SEAT, kind])
    return seen


@kernel(inline="always")
def _hidden_ids_r(e, seat, seen):
    """The true deal of what ``seat`` cannot see as ``(ids, m, left)``: ``ids[:m]`` the card
    ids of the other hands, the replenishment deck, the NPC deck and the ``left`` cards
    out of the round, in that order (a copy card in a hand takes a free copy id)."""
    m = NUM_COPIES - seen[COPY_KIND]
    for kind in range(COPY_KIND):
        m += seen[kind] == 0
    held = 0
    for p in range(e.hand.shape[0]):
        if _hidden_hand(e, seat, p):
            held += np.int64(e.hand_n[p])
    left = m - held - np.int64(e.repl_n) - np.int64(e.npc_n)
    true = np.empty(NUM_CARDS, np.int8)
    used = np.zeros(NUM_CARDS, np.uint8)  # copy ids with a place in a deck
    k = held
    for j in range(e.repl_n):
        true[k] = e.repl[j]
        k += 1
    for j in range(e.npc_n):
        true[k] = e.npc_deck[j]
        k += 1
    for j in range(NUM_CARDS - left, NUM_CARDS):
        true[k] = e.deck[j]
        k += 1
    for j in range(held, m):
        used[true[j]] = 1
    k = 0
    free = COPY_KIND
    for p in range(e.hand.shape[0]):
        if _hidden_hand(e, seat, p):
            for kind in range(NUM_KINDS):
                for _ in range(e.hand[p, kind]):
                    if kind == COPY_KIND:
                        while used[free] != 0:
                            free += 1
                        true[k] = free
                        free += 1
                    else:
                        true[k] = kind
                    k += 1
    return true, m, left


@kernel
def resample_hidden_r(e, seat, w):
    """Deal the cards ``seat`` cannot see in the record ``e`` again, uniformly among the deals
    its observation allows (the module docstring), draw the record's generator word
    ``e.rng`` afresh, and return the next generator word after ``w``."""
    seat = np.int64(seat)
    true, m, left = _hidden_ids_r(e, seat, _seen_r(e, seat))
    pool = np.empty(NUM_CARDS, np.int8)
    x = np.uint64(w)
    ok = False
    unseen = true[:m].copy()
    unseen.sort()  # from the set alone: the draw does not depend on where the cards are
    for _ in range(MAX_TRIES):
        for j in range(m):
            pool[j] = unseen[j]
        x = shuffle_word(x, pool, m)
        _place_r(e, seat, pool, m, left)
        if _consistent_r(e, seat):
            ok = True
            break
    if not ok:
        _place_r(e, seat, true, m, left)
    x, z = next_word(x)
    e.rng = z
    return x
