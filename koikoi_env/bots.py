"""Scripted Koikoi bots, as kernels so a bot match never leaves compiled code.

Bot protocol (shared by every game): ``bot_action(bot_id, s, i, mask, rng, r) -> action``
where ``s`` is the State record array, ``i`` the env index, ``mask`` the (178,) int8
action mask of the acting seat, ``rng`` a uint64 array of bot generator words (never
the env's own stream) and ``r`` the index of the word to use. A bot reads only what the
acting seat observes: its own hand and the public table (hand sizes, field, captured
cards, chips, counts); never another hand or the stock order.

Bots:
    random  uniform over the legal actions.
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
"""

from __future__ import annotations

import numpy as np

from tabletop_core.jit import kernel
from tabletop_core.rng import sample_legal

from .rules import suit_yaku
from .spec import (
    KOIKOI,
    MAX_PLAYERS,
    NUM_CARDS,
    NUM_NUMBER_RANKS,
    NUM_SUITS,
    PLAY_OFFSET,
    RANKS_PER_SUIT,
    STOP,
    TAKE_OFFSET,
    Phase,
)
from .state import LOC_CAPTURED, LOC_FIELD, LOC_HAND

BOT_NAMES = ("random", "greedy", "strong")
BOT_IDS = {name: k for k, name in enumerate(BOT_NAMES)}

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
NUM_PARAMS = 10

GREEDY_PARAMS = np.array([1.2, 0.3, 1.6, 0.15, 0.5, 0.0, 0.0, 0.0, 99.0, 0.0], np.float64)
# tuned by hill climbing against three greedy bots (4 players, seats rotated)
STRONG_PARAMS = np.array([0.817, 0.0, 1.656, 0.15, 0.5, 0.456, 0.892, 0.0, 99.0, 0.0], np.float64)


@kernel
def random_bot(s, i, mask, rng, r):
    """Uniform over the legal actions in ``mask``."""
    return sample_legal(rng, r, mask)


# --- evaluation -----------------------------------------------------------------------------
@kernel
def _longest_run(bits):
    best = 0
    run = 0
    for r in range(NUM_NUMBER_RANKS):
        if (bits >> r) & 1:
            run += 1
            if run > best:
                best = run
        else:
            run = 0
    return best


@kernel
def suit_value(count, nn, bits, prm):
    """Yaku score of one suit's captured cards plus partial credit for progress."""
    longest = _longest_run(bits)
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
def captured_stats(s, i, cnt, nn, bits):
    """Fill (MAX_PLAYERS, 4) int64 arrays with each seat's captured count, non-number
    count and number bitmask per suit (public information)."""
    e = s[i]
    cnt[:, :] = 0
    nn[:, :] = 0
    bits[:, :] = 0
    for c in range(NUM_CARDS):
        loc = e.loc[c]
        if loc >= LOC_CAPTURED:
            p = loc - LOC_CAPTURED
            suit = c // RANKS_PER_SUIT
            r = c % RANKS_PER_SUIT
            cnt[p, suit] += 1
            if r >= NUM_NUMBER_RANKS:
                nn[p, suit] += 1
            else:
                bits[p, suit] |= np.int64(1) << r


@kernel
def gain(cnt, nn, bits, seat, c0, c1, c2, c3, prm):
    """Rise of ``seat``'s evaluation when it captures cards ``c0..c3`` (-1 = none)."""
    total = 0.0
    for suit in range(NUM_SUITS):
        k = cnt[seat, suit]
        n = nn[seat, suit]
        b = bits[seat, suit]
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
            total += suit_value(k, n, b, prm) - suit_value(
                cnt[seat, suit], nn[seat, suit], bits[seat, suit], prm
            )
    return total


@kernel
def best_opponent_gain(cnt, nn, bits, seat, players, c0, c1, c2, c3, prm):
    """Largest :func:`gain` of the cards for any seat other than ``seat``."""
    best = 0.0
    for p in range(players):
        if p != seat:
            g = gain(cnt, nn, bits, p, c0, c1, c2, c3, prm)
            if g > best:
                best = g
    return best


@kernel
def _field_of_rank(s, i, card, which):
    """The ``which``-th (0-based) field card with ``card``'s rank, -1 if none."""
    e = s[i]
    r = card % RANKS_PER_SUIT
    k = 0
    for suit in range(NUM_SUITS):
        c = suit * RANKS_PER_SUIT + r
        if c != card and e.loc[c] == LOC_FIELD:
            if k == which:
                return c
            k += 1
    return -1


@kernel
def _unseen_of_rank(s, i, seat, card):
    """Cards of ``card``'s rank that ``seat`` cannot see (stock or other hands)."""
    e = s[i]
    r = card % RANKS_PER_SUIT
    n = 0
    for suit in range(NUM_SUITS):
        c = suit * RANKS_PER_SUIT + r
        loc = e.loc[c]
        if loc == 0 or (loc >= LOC_HAND and loc < LOC_CAPTURED and loc != LOC_HAND + seat):
            n += 1
    return n


@kernel
def _capture_value(cnt, nn, bits, seat, players, c0, c1, c2, c3, prm):
    return gain(cnt, nn, bits, seat, c0, c1, c2, c3, prm) + prm[P_DENY] * best_opponent_gain(
        cnt, nn, bits, seat, players, c0, c1, c2, c3, prm
    )


@kernel
def decide(s, i, mask, prm):
    """The evaluation bot's action (greedy with :data:`GREEDY_PARAMS`, strong with
    :data:`STRONG_PARAMS`); reads only the acting seat's information."""
    e = s[i]
    seat = np.int64(e.current)
    players = np.int64(e.cfg_players)
    cnt = np.zeros((MAX_PLAYERS, NUM_SUITS), np.int64)
    nn = np.zeros((MAX_PLAYERS, NUM_SUITS), np.int64)
    bits = np.zeros((MAX_PLAYERS, NUM_SUITS), np.int64)
    captured_stats(s, i, cnt, nn, bits)
    if e.phase == _DECIDE:
        return _koikoi_or_stop(s, i, cnt, nn, bits, prm)
    if e.phase != _PLAY:
        # choose one of the two field cards for the pending card
        best_a = -1
        best_v = -1.0e18
        for a in range(TAKE_OFFSET, TAKE_OFFSET + NUM_CARDS):
            if mask[a] != 0:
                v = _capture_value(cnt, nn, bits, seat, players, a - TAKE_OFFSET, e.pending, -1, -1, prm)
                if v > best_v:
                    best_v = v
                    best_a = a
        return best_a
    # play a hand card
    opp_hand = 0
    for p in range(players):
        if p != seat:
            opp_hand += e.hand_size[p]
    unseen_total = opp_hand + (NUM_CARDS - np.int64(e.deck_pos))
    best_a = -1
    best_v = -1.0e18
    for c in range(NUM_CARDS):
        if mask[PLAY_OFFSET + c] == 0:
            continue
        f0 = _field_of_rank(s, i, c, 0)
        if f0 >= 0:
            f1 = _field_of_rank(s, i, c, 1)
            f2 = _field_of_rank(s, i, c, 2)
            if f1 >= 0 and f2 < 0:  # two matches: the better choice
                v0 = _capture_value(cnt, nn, bits, seat, players, c, f0, -1, -1, prm)
                v1 = _capture_value(cnt, nn, bits, seat, players, c, f1, -1, -1, prm)
                v = v0 if v0 > v1 else v1
            else:
                v = _capture_value(cnt, nn, bits, seat, players, c, f0, f1, f2, prm)
            v += 0.01
        else:
            v = -prm[P_KEEP] * gain(cnt, nn, bits, seat, c, -1, -1, -1, prm)
            if prm[P_FEED] != 0.0 and unseen_total > 0:
                u = _unseen_of_rank(s, i, seat, c)
                p_opp = 1.0 - (1.0 - opp_hand / unseen_total) ** u
                v -= (
                    prm[P_FEED] * p_opp * best_opponent_gain(cnt, nn, bits, seat, players, c, -1, -1, -1, prm)
                )
        if v > best_v:
            best_v = v
            best_a = PLAY_OFFSET + c
    return best_a


@kernel
def _koikoi_or_stop(s, i, cnt, nn, bits, prm):
    """STOP unless the stake is below ``P_KOI_MAX``, the stock holds at least
    ``P_KOI_STOCK`` cards and every opponent's partial-credit potential is at least
    ``P_KOI_THREAT`` away from the 5 points of a Great/Triple yaku."""
    e = s[i]
    seat = e.current
    stake = np.int64(e.yaku[seat]) * max(1, min(4, np.int64(e.koikoi[seat])))
    if stake >= prm[P_KOI_MAX] or NUM_CARDS - np.int64(e.deck_pos) < prm[P_KOI_STOCK]:
        return STOP
    for p in range(e.cfg_players):
        if p == seat:
            continue
        pot = 0.0
        for suit in range(NUM_SUITS):
            pot = max(pot, suit_value(cnt[p, suit], nn[p, suit], bits[p, suit], prm))
        if pot + prm[P_KOI_THREAT] >= 5.0:
            return STOP
    return KOIKOI


@kernel
def greedy_bot(s, i, mask, rng, r):
    """Greedy yaku collector (see the module docstring)."""
    return decide(s, i, mask, GREEDY_PARAMS)


@kernel
def strong_bot(s, i, mask, rng, r):
    """Evaluation with denial, feeding risk and a koi-koi rule (module docstring)."""
    return decide(s, i, mask, STRONG_PARAMS)


@kernel
def bot_action(bot_id, s, i, mask, rng, r):
    """Dispatch to the bot numbered ``bot_id`` (index in :data:`BOT_NAMES`)."""
    if bot_id == 1:
        return greedy_bot(s, i, mask, rng, r)
    if bot_id == 2:
        return strong_bot(s, i, mask, rng, r)
    return random_bot(s, i, mask, rng, r)
