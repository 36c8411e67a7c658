"""Scripted Koikoi bots, as kernels so a bot match never leaves compiled code.

Bot protocol (shared by every game): ``bot_action_r(e, bot_id, masks, row, rng, r) -> action``
where ``e`` is one env's record, ``masks[row]`` the (178,) int8
action mask of the acting seat, ``rng`` a uint64 array of bot generator words (never
the env's own stream) and ``r`` the index of the word to use. A bot reads only what the
acting seat observes: its own hand and the public table (hand sizes, field, captured
cards, chips, counts); never another hand or the stock order.

Bots:
    random  uniform over the legal actions; reads them from the state, not from
            ``mask`` (the same choice as ``sample_legal`` on the mask), so loops that
            only run random bots may skip writing the mask (``batch.play_games``).
    greedy  plays the capture that adds the most to its own yaku potential (yaku score
            plus partial credit for progress towards Great / Triple / suit yaku); with
            nothing to capture, gives up its least useful card; takes the more valuable
            of two field cards; stops as soon as its yaku score rises (cashes in while
            ahead).
    strong  the same evaluation with weights tuned by hill climbing against three
            greedy bots, plus what a capture denies to the best opponent and the risk
            that a discarded card feeds the next seats (estimated from the unseen
            cards of its rank). Its koi-koi rule (:func:`_koikoi_or_stop`, parameters
            ``P_KOI_*``) came out of tuning as "always stop": one koi-koi keeps the
            multiplier at x1, so the first declaration is pure risk for this bot.

Every bot kernel has a record form taking ``e = s[i]`` (``random_bot_r``, ``decide_r``,
``bot_action_r``; ``rules`` explains why); the evaluation reads the captured cards from
``capt_bits`` and allocates nothing.
"""

from __future__ import annotations

import numpy as np

from tabletop_core.kernel.jit import kernel
from tabletop_core.kernel.rng import randint

from .bits import NUMBER_BITS, longest_run, nth_bit, popcount
from .rules import koikoi_multiplier, stock_size_r, suit_yaku, unseen_of_rank_r
from .spec import (
    KOIKOI,
    NUM_CARDS,
    NUM_NUMBER_RANKS,
    NUM_SUITS,
    PLAY_OFFSET,
    RANKS_PER_SUIT,
    STOP,
    TAKE_OFFSET,
    Phase,
)
from .state import LOC_FIELD

BOT_NAMES = ("random", "greedy", "strong")
BOT_IDS = {name: k for k, name in enumerate(BOT_NAMES)}
RANDOM_BOT = BOT_IDS["random"]
GREEDY_BOT = BOT_IDS["greedy"]
STRONG_BOT = BOT_IDS["strong"]

_PLAY = int(Phase.PLAY)
_DECIDE = int(Phase.DECIDE)

# Parameter vector of the evaluation (index -> meaning).
P_NN = 0  # partial credit per non-number card below 3 (towards Great X)
P_R1 = 1  # partial credit of a longest run of 1 (towards Triple X)
P_R2 = 2  # partial credit of a longest run of 2
P_CNT = 3  # partial credit per card of a suit below 6 (towards X)
P_KEEP = 4  # weight of the own value of a card given up without a capture
P_DENY = 5  # weight of what a capture denies to the best opponent
P_FEED = 6  # weight of what a discard may feed to an opponent
P_KOI_MAX = 7  # strong: koi-koi only while the stake (yaku x multiplier) is below this
P_KOI_STOCK = 8  # strong: ... and at least this many cards are left in the stock
P_KOI_THREAT = 9  # strong: ... and no opponent's potential is within this of a yaku

GREEDY_PARAMS = np.array([1.2, 0.3, 1.6, 0.15, 0.5, 0.0, 0.0, 0.0, 99.0, 0.0], np.float64)
# tuned by hill climbing against three greedy bots (4 players, seats rotated)
STRONG_PARAMS = np.array([0.817, 0.0, 1.656, 0.15, 0.5, 0.456, 0.892, 0.0, 99.0, 0.0], np.float64)


@kernel
def random_bot_r(e, rng, r):
    """Uniform over the legal actions of the record ``e``, read from the state (no mask):
    the ``k``-th legal action in id order for ``k = randint(rng, r, count)``, i.e. the
    same choice as ``tabletop_core.kernel.rng.sample_legal(rng, r, mask)``. -1 once the game is
    over (``rules`` explains the ``_r`` kernels)."""
    if e.status != 0:
        return -1
    ph = e.phase
    if ph == _PLAY:  # the k-th card of the hand (suit words in card order), branch-free
        seat = e.current
        p0 = popcount(np.int64(e.hand_bits[seat, 0]))
        p1 = p0 + popcount(np.int64(e.hand_bits[seat, 1]))
        p2 = p1 + popcount(np.int64(e.hand_bits[seat, 2]))
        count = p2 + popcount(np.int64(e.hand_bits[seat, 3]))
        k = randint(rng, r, count)
        suit = np.int64(k >= p0) + np.int64(k >= p1) + np.int64(k >= p2)
        before = p2 if k >= p2 else (p1 if k >= p1 else (p0 if k >= p0 else 0))
        return PLAY_OFFSET + suit * RANKS_PER_SUIT + nth_bit(e.hand_bits[seat, suit], k - before)
    if ph == _DECIDE:
        return KOIKOI + randint(rng, r, 2)  # KOIKOI then STOP
    # CHOOSE_*: the field cards of the pending card's rank, as a 4-bit word over the suits
    rank = e.pending % RANKS_PER_SUIT
    suits = 0
    for suit in range(NUM_SUITS):
        suits |= np.int64(e.loc[suit * RANKS_PER_SUIT + rank] == LOC_FIELD) << suit
    k = randint(rng, r, popcount(suits))
    return TAKE_OFFSET + nth_bit(suits, k) * RANKS_PER_SUIT + rank


# --- evaluation -----------------------------------------------------------------------------
@kernel
def suit_value(count, nn, bits, prm):
    """Yaku score of one suit's captured cards plus partial credit for progress."""
    longest = longest_run(bits)
    v = float(suit_yaku(count, nn, longest))
    if nn < 3:
        v += prm[P_NN] * nn
    if longest == 1:
        v += prm[P_R1]
    elif longest == 2:
        v += prm[P_R2]
    if count < 6:
        v += prm[P_CNT] * count
    return v


@kernel
def suit_stats(cap, seat, suit):
    """``(count, non-number count, number bitmask)`` of ``seat``'s captured cards of
    ``suit``; ``cap`` is the State's ``capt_bits`` (public information)."""
    w = np.int64(cap[seat, suit])
    return popcount(w), popcount(w >> NUM_NUMBER_RANKS), w & NUMBER_BITS


@kernel(constant_ints=True)  # a version per constant card (-1: none) folds unused work
def gain(cap, seat, c0, c1, c2, c3, prm):
    """Rise of ``seat``'s evaluation when it captures cards ``c0..c3`` (-1 = none);
    ``cap`` is the State's ``capt_bits``."""
    total = 0.0
    for suit in range(NUM_SUITS):
        k0, n0, b0 = suit_stats(cap, seat, suit)
        k = k0
        n = n0
        b = b0
        changed = False
        for j in range(4):
            c = (
                np.int64(c0)
                if j == 0
                else (np.int64(c1) if j == 1 else (np.int64(c2) if j == 2 else np.int64(c3)))
            )
            if c >= 0 and c // RANKS_PER_SUIT == suit:
                changed = True
                k += 1
                r = c % RANKS_PER_SUIT
                if r >= NUM_NUMBER_RANKS:
                    n += 1
                else:
                    b |= np.int64(1) << r
        if changed:
            total += suit_value(k, n, b, prm) - suit_value(k0, n0, b0, prm)
    return total


@kernel(constant_ints=True)  # a version per constant card (-1: none) folds unused work
def best_opponent_gain(cap, seat, players, c0, c1, c2, c3, prm):
    """Largest :func:`gain` of the cards for any seat other than ``seat``."""
    best = 0.0
    for p in range(players):
        if p != seat:
            g = gain(cap, p, c0, c1, c2, c3, prm)
            if g > best:
                best = g
    return best


@kernel(constant_ints=True)  # a version per constant card (-1: none) folds unused work
def _field_of_rank(e, card, which):
    """The ``which``-th (0-based) field card with ``card``'s rank, -1 if none."""
    r = card % RANKS_PER_SUIT
    k = 0
    for suit in range(NUM_SUITS):
        c = suit * RANKS_PER_SUIT + r
        if c != card and e.loc[c] == LOC_FIELD:
            if k == which:
                return c
            k += 1
    return -1


@kernel(constant_ints=True)  # a version per constant card (-1: none) folds unused work
def _capture_value(cap, seat, players, c0, c1, c2, c3, prm):
    return gain(cap, seat, c0, c1, c2, c3, prm) + prm[P_DENY] * best_opponent_gain(
        cap, seat, players, c0, c1, c2, c3, prm
    )


@kernel
def decide_r(e, mask, prm):
    """The evaluation bot's action for the record ``e`` (greedy with :data:`GREEDY_PARAMS`,
    strong with :data:`STRONG_PARAMS`); reads only the acting seat's information."""
    seat = np.int64(e.current)
    players = np.int64(e.cfg_players)
    cap = e.capt_bits
    if e.phase == _DECIDE:
        return _koikoi_or_stop(e, prm)
    if e.phase != _PLAY:
        # choose one of the two field cards for the pending card
        best_a = -1
        best_v = -1.0e18
        for a in range(TAKE_OFFSET, TAKE_OFFSET + NUM_CARDS):
            if mask[a] != 0:
                v = _capture_value(cap, seat, players, a - TAKE_OFFSET, e.pending, -1, -1, prm)
                if v > best_v:
                    best_v = v
                    best_a = a
        return best_a
    # play a hand card
    opp_hand = 0
    for p in range(players):
        if p != seat:
            opp_hand += e.hand_size[p]
    unseen_total = opp_hand + stock_size_r(e)
    best_a = -1
    best_v = -1.0e18
    for c in range(NUM_CARDS):
        if mask[PLAY_OFFSET + c] == 0:
            continue
        f0 = _field_of_rank(e, c, 0)
        if f0 >= 0:
            f1 = _field_of_rank(e, c, 1)
            f2 = _field_of_rank(e, c, 2)
            if f1 >= 0 and f2 < 0:  # two matches: the better choice
                v0 = _capture_value(cap, seat, players, c, f0, -1, -1, prm)
                v1 = _capture_value(cap, seat, players, c, f1, -1, -1, prm)
                v = v0 if v0 > v1 else v1
            else:
                v = _capture_value(cap, seat, players, c, f0, f1, f2, prm)
            v += 0.01
        else:
            v = -prm[P_KEEP] * gain(cap, seat, c, -1, -1, -1, prm)
            if prm[P_FEED] != 0.0 and unseen_total > 0:
                u = unseen_of_rank_r(e, seat, c)
                p_opp = 1.0 - (1.0 - opp_hand / unseen_total) ** u
                v -= prm[P_FEED] * p_opp * best_opponent_gain(cap, seat, players, c, -1, -1, -1, prm)
        if v > best_v:
            best_v = v
            best_a = PLAY_OFFSET + c
    return best_a


@kernel
def _koikoi_or_stop(e, prm):
    """STOP unless the stake is below ``P_KOI_MAX``, the stock holds at least
    ``P_KOI_STOCK`` cards and every opponent's partial-credit potential is at least
    ``P_KOI_THREAT`` away from the 5 points of a Great/Triple yaku."""
    seat = e.current
    stake = np.int64(e.yaku[seat]) * koikoi_multiplier(e.koikoi[seat])
    if stake >= prm[P_KOI_MAX] or stock_size_r(e) < prm[P_KOI_STOCK]:
        return STOP
    for p in range(e.cfg_players):
        if p == seat:
            continue
        pot = 0.0
        for suit in range(NUM_SUITS):
            k, n, b = suit_stats(e.capt_bits, p, suit)
            pot = max(pot, suit_value(k, n, b, prm))
        if pot + prm[P_KOI_THREAT] >= 5.0:
            return STOP
    return KOIKOI


@kernel
def bot_action_r(e, bot_id, masks, row, rng, r):
    """:func:`bot_action_r` of the record ``e``."""
    mask = masks[row]
    if bot_id == GREEDY_BOT:
        return decide_r(e, mask, GREEDY_PARAMS)
    if bot_id == STRONG_BOT:
        return decide_r(e, mask, STRONG_PARAMS)
    return random_bot_r(e, rng, r)
