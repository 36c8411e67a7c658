"""The Game's determinizations: what one seat cannot see, drawn again (``docs/rules/thegame.md``,
"Hidden information and resampling").

Public to every seat: the played cards and pile tops, the fire deadlines, the turn
counters, every hand's size and the draw pile's size (:mod:`thegame_env.observe`). Hidden
from ``seat``: which unseen card is in which other hand and the draw pile's order. The
unseen cards (the other hands plus the draw pile) are dealt again by one uniform shuffle
into the same hand sizes, then kept only if the seat to act, when it is not ``seat``, is in
the position the table shows: it owes a play and has one while the game runs, or owes one
and has none once the game ended stuck (rejection, so the draw stays uniform over those
consistent deals).
"""

from __future__ import annotations

import numpy as np

from tabletop_core.kernel.jit import kernel
from tabletop_core.kernel.rng import next_word, shuffle_word

from .rules import has_play_r, min_plays_now_r
from .spec import MAX_PLAYERS, MIN_CARD, NUM_CARDS, Status

__all__ = ["resample_hidden_r"]

_PLAYING = int(Status.PLAYING)
_STUCK = int(Status.STUCK)
#: Deals tried before the kernel keeps the true one (a rejection loop needs an end; the
#: true deal is always consistent, and a consistent deal is rarely this unlikely).
MAX_TRIES = 4096


@kernel
def _consistent_r(e, seat):
    """Whether the acting seat (not ``seat``) holds what the table says it holds."""
    if e.current == seat or (e.status != _PLAYING and e.status != _STUCK):
        return True
    if e.plays_this_turn >= min_plays_now_r(e):
        return True  # may end the turn: nothing is said of its cards
    return has_play_r(e) == (e.status == _PLAYING)


@kernel
def resample_hidden_r(e, seat, w):
    """Deal the cards ``seat`` cannot see in the record ``e`` again, uniformly among the deals
    its observation allows (the module docstring), draw the record's generator word
    ``e.rng`` afresh, and return the next generator word after ``w``.

    The draw pile ``deck[deck_pos:]`` and the other seats' hands (seat by seat, slot by
    slot) take the shuffled unseen cards; ``deck[:deck_pos]`` (the cards dealt so far) has
    each other-hand card replaced by the card that took its place, so the deck stays a
    record of the dealt cards.
    """
    seat = np.int64(seat)
    n = np.int64(e.cfg_players)
    pool = np.empty(NUM_CARDS, np.int8)
    old = np.empty(NUM_CARDS, np.int8)
    m = 0
    for p in range(MAX_PLAYERS):
        if p < n and p != seat:
            for k in range(e.hand_size[p]):
                old[m] = e.hand[p, k]
                m += 1
    held = m
    for j in range(np.int64(e.deck_pos), NUM_CARDS):
        old[m] = e.deck[j]
        m += 1
    x = np.uint64(w)
    ok = False
    unseen = old[:m].copy()
    unseen.sort()  # from the set alone: the draw does not depend on where the cards are
    for _ in range(MAX_TRIES):
        for j in range(m):
            pool[j] = unseen[j]
        x = shuffle_word(x, pool, m)
        _place_r(e, seat, pool, held)
        if _consistent_r(e, seat):
            ok = True
            break
    if not ok:  # keep the true deal
        for j in range(m):
            pool[j] = old[j]
        _place_r(e, seat, pool, held)
    remap = np.zeros(NUM_CARDS + MIN_CARD, np.int8)
    for j in range(held):
        remap[old[j]] = pool[j]
    for j in range(np.int64(e.deck_pos)):
        c = e.deck[j]
        if remap[c] != 0:
            e.deck[j] = remap[c]
    x, z = next_word(x)
    e.rng = z
    return x


@kernel
def _place_r(e, seat, pool, held):
    """Write ``pool[:held]`` into the other hands (seat order, slot order), the rest into the draw pile."""
    n = np.int64(e.cfg_players)
    m = 0
    for p in range(MAX_PLAYERS):
        if p < n and p != seat:
            for k in range(e.hand_size[p]):
                e.hand[p, k] = pool[m]
                m += 1
    for j in range(np.int64(e.deck_pos), NUM_CARDS):
        e.deck[j] = pool[m]
        m += 1
