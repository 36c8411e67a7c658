"""Scripted bots for Exhaust, as kernels so a bot match never leaves compiled code.

Bot protocol (shared by every game): ``bot_action_r(e, bot_id, masks, row, rng, r) -> action``
where ``e`` is one env's record, ``masks[row]`` the (73,) int8
action mask of the acting seat (C-contiguous, e.g. a row of the (B, 73) mask buffer),
``rng`` a uint64 array of bot generator words (never the env's own stream) and ``r`` the
index of the word to use. A bot reads only what the acting seat observes: its own hand,
the selection and the public table.

The deterministic bots decide a whole play from the hand and the table (which do not
change while the selection is built), then emit it one action at a time: the missing
cards in kind order, then the cast. If the selection ever strays from the plan (a
selection made by someone else, e.g. after ``set_state``), they finish it with the first
legal cast, else the first legal card.

Bots:
    random  uniform over the legal actions (adds, casts, Time Magic, flip): the pick of
            ``tabletop_core.kernel.rng.sample_legal`` on the same mask and generator word,
            computed on the mask as two 64-bit words (:func:`random_from_words`).
    npc     the rulebook's NPC logic (:func:`exhaust_env.rules.npc_choose`) on the own
            hand, without the NPC's drawing: a spell-card play if any, else flip a
            face-up Exhaust card, else Time Magic.
    strong  scores every candidate play (each legal single, each set number, each
            straight start, each flush colour, the lowest Any) by the turns the rest of
            its hand would sustain on its own afterwards (:func:`future_turns`: the NPC
            logic replayed on a private copy of the table, Time Magic won included),
            weighted ``W_SIM``; ties are broken by a hand-written score: cards spent
            weighted by their future use (low numbers about to die are cheap, copies
            dear), rewards (Time Magic, a replenishment card), the own cards a high
            number strands below it, a charge for feeding the Any area. Time Magic and
            the flip only when no spell-card play exists (flip first). Weights tuned by
            random search against three npc bots (``STRONG_WEIGHTS``).
"""

from __future__ import annotations

import numpy as np

from tabletop_core.kernel.bits import read_bits_row, stack_u64
from tabletop_core.kernel.jit import kernel
from tabletop_core.kernel.rng import randint

from .bits import popcount
from .rules import count_needed, npc_choose, nth_legal, set_size, single_area_of, take_colour, take_number
from .spec import (
    ANY,
    CAST_OFFSET,
    COPY_KIND,
    FLIP_EXHAUST,
    FLUSH,
    FOUR,
    NUM_ACTIONS,
    NUM_COLOURS,
    NUM_KINDS,
    NUM_NUMBERS,
    PAIR,
    PLAY_TIME_MAGIC,
    STRAIGHT,
    THREE,
)

BOT_NAMES = ("random", "npc", "strong")
BOT_IDS = {name: k for k, name in enumerate(BOT_NAMES)}
RANDOM = BOT_IDS["random"]
NPC = BOT_IDS["npc"]
STRONG = BOT_IDS["strong"]

# Weights of the strong bot (index -> meaning).
W_TM = 0  # value of one Time Magic card won
W_REPL = 1  # value of a replenishment card won
W_COPY = 2  # future value of a copy card
W_BASE = 3  # future value of a number card that is dead in every number area
W_ALIVE = 4  # extra future value of a number card still alive in a number area
W_HIGH = 5  # extra future value per number (n / 15) of a live card
W_STRAND = 6  # cost per own card stranded below a raised number-area top
W_ANY = 7  # cost per card of the count an Any play sets
W_COUNT = 8  # cost per card of the count a Straight / Flush play sets
W_TM_PLAY = 9  # play held Time Magic instead when the best play scores below -this (99: off)
W_SINGLE = 10  # bonus of a one-card play (the cheapest turn)
W_BLOCK = 11  # bonus per unseen card (likely an opponent's) stranded below a raised top
W_SIM = 12  # weight of the turns the rest of the hand sustains alone after the play
W_GAMMA = 13  # discount of each further simulated card play (opponents may block it)
W_SIM_TM = 14  # value of a Time Magic card won in the simulation (a turn nobody can block)
# Tuned against three npc bots (4 players, every seat): lower thresholds for Time Magic,
# blocking bonuses, a discount < 1 or a dearer simulated Time Magic all lost more games.
STRONG_WEIGHTS = np.array(
    [0.924, 0.618, 1.26, -0.015, 0.348, 0.347, 0.148, 0.117, 0.051, 99.0, 0.048, 0.0, 3.0, 1.0, 1.0],
    np.float64,
)


@kernel
def first_legal(mask):
    """First legal cast, else the first legal action of ``mask`` (-1 if none)."""
    for a in range(CAST_OFFSET, CAST_OFFSET + 10):
        if mask[a] != 0:
            return a
    for a in range(mask.shape[0]):
        if mask[a] != 0:
            return a
    return -1


@kernel
def play_step(e, play, area, mask):
    """Next action towards casting ``play`` (61,) counts onto ``area``: the first card of
    ``play`` missing from the selection, or the cast once they match."""
    for k in range(NUM_KINDS):
        if e.sel[k] > play[k]:
            return first_legal(mask)
    for k in range(NUM_KINDS):
        if e.sel[k] < play[k]:
            if mask[k] != 0:
                return k
            return first_legal(mask)
    if mask[CAST_OFFSET + area] != 0:
        return CAST_OFFSET + area
    return first_legal(mask)


@kernel
def _rescue(mask):
    """No spell-card play: flip a face-up Exhaust card, else Time Magic, else any."""
    if mask[FLIP_EXHAUST] != 0:
        return FLIP_EXHAUST
    if mask[PLAY_TIME_MAGIC] != 0:
        return PLAY_TIME_MAGIC
    return first_legal(mask)


@kernel
def mask_words_row(masks, row):
    """The legal actions of ``masks[row]`` (``masks`` (N, 73) int8) as two words
    ``(w0, w1)``: bit a of ``w0`` = action a (0..63) is legal, bit a - 64 of ``w1`` =
    action a (64..72) (:func:`tabletop_core.kernel.bits.read_bits_row`, in vector loads)."""
    words = stack_u64(2)
    read_bits_row(masks, row, NUM_ACTIONS, words)
    return words[0], words[1]


@kernel
def mask_words(mask):
    """:func:`mask_words_row` of a (73,) int8 mask."""
    return mask_words_row(mask[np.newaxis, :], 0)


@kernel
def random_from_words(w0, w1, rng, r):
    """Uniform over the legal actions of the words ``(w0, w1)`` (-1 if none): the k-th
    legal action in action order for k = ``randint(rng, r, count)``, i.e. the choice of
    ``tabletop_core.kernel.rng.sample_legal`` on the same mask and generator word."""
    count = popcount(w0) + popcount(w1)
    if count == 0:
        return -1
    return nth_legal(w0, w1, randint(rng, r, count))


@kernel
def random_bot_r(e, mask, rng, r):
    """Uniform over the legal actions in ``mask`` (:func:`random_from_words`)."""
    w0, w1 = mask_words(mask)
    return random_from_words(w0, w1, rng, r)


@kernel
def npc_bot_r(e, mask, rng, r):
    """The rulebook NPC's choice on the acting seat's own hand (no drawing)."""
    play = np.zeros(NUM_KINDS, np.uint8)
    area = npc_choose(e.hand[e.current], e.area_top, e.cfg_singles, play)
    if area < 0:
        if e.sel_n > 0:
            return first_legal(mask)
        return _rescue(mask)
    return play_step(e, play, area, mask)


# --- strong bot ---------------------------------------------------------------------------
@kernel
def _card_value(k, tops, singles, w):
    """Future value of one card of kind ``k`` on the table ``tops``."""
    if k == COPY_KIND:
        return w[W_COPY]
    n = k % NUM_NUMBERS + 1
    c = k // NUM_NUMBERS
    alive = n > tops[single_area_of(singles, c)] or n > tops[PAIR] or n > tops[THREE] or n > tops[FOUR]
    if not alive:
        return w[W_BASE]
    return w[W_BASE] + w[W_ALIVE] + w[W_HIGH] * n / NUM_NUMBERS


@kernel(inline="always")
def _stranded(k, t, number, area, singles):
    """Whether number card ``k`` is stranded by a play raising ``area``'s top from ``t`` to
    ``number``: its number lies between them and it could have gone on that area (a
    Single area takes one colour)."""
    n = k % NUM_NUMBERS + 1
    if n <= t or n >= number:
        return False
    return not (area < 4 and single_area_of(singles, k // NUM_NUMBERS) != area)


@kernel
def _score(hand, play, area, tops, singles, tm_pile, repl_n, played, w):
    """The strong bot's value of casting ``play`` onto ``area``."""
    v = 0.0
    total = 0
    number = 0
    for k in range(NUM_KINDS):
        c = play[k]
        if c == 0:
            continue
        total += c
        v -= c * _card_value(k, tops, singles, w)
        if k < COPY_KIND:
            number = max(number, k % NUM_NUMBERS + 1)
    if area == PAIR:
        if repl_n > 0:
            v += w[W_REPL]
    elif area == FOUR:
        v += w[W_TM] * min(2, tm_pile)
    elif area >= THREE:
        v += w[W_TM] * min(1, tm_pile)
    if area < 4:
        v += w[W_SINGLE]
    if area <= FOUR:
        # own cards of this area stranded between the old top and the new number
        t = tops[area]
        for k in range(COPY_KIND):
            if hand[k] != 0 and play[k] == 0 and _stranded(k, t, number, area, singles):
                v -= w[W_STRAND]
        # unseen cards (not in the own hand, not played) stranded the same way
        for k in range(COPY_KIND):
            if hand[k] == 0 and played[k] == 0 and _stranded(k, t, number, area, singles):
                v += w[W_BLOCK]
    elif area == ANY:
        v -= w[W_ANY] * total
    else:
        v -= w[W_COUNT] * total
    return v


@kernel
def future_turns(hand, play, area, tops, singles, tm_pile, gamma, tm_value, work_hand, work_tops, buf):
    """Turns the hand left after casting ``play`` on ``area`` sustains on its own: the
    NPC's choices replayed on a private copy of the table (other seats not moving),
    plus every Time Magic card won on the way. A self-sufficiency estimate: the k-th
    further card play counts ``gamma ** k``, a Time Magic card won ``tm_value``."""
    for k in range(NUM_KINDS):
        work_hand[k] = hand[k] - play[k]
    for a in range(tops.shape[0]):
        work_tops[a] = tops[a]
    pile = tm_pile
    turns = 0.0
    weight = 1.0
    a = area
    cur = play
    while True:
        total = 0
        number = 0
        for k in range(NUM_KINDS):
            total += cur[k]
            if k < COPY_KIND and cur[k] != 0:
                number = max(number, k % NUM_NUMBERS + 1)
        work_tops[a] = number if a <= FOUR else total
        gain = 0
        if a == FOUR:
            gain = 2
        elif a >= THREE:
            gain = 1
        gain = min(gain, pile)
        pile -= gain
        turns += gain * tm_value
        a = npc_choose(work_hand, work_tops, singles, buf)
        if a < 0:
            break
        turns += weight
        weight *= gamma
        for k in range(NUM_KINDS):
            work_hand[k] -= buf[k]
        cur = buf
    return turns


@kernel
def _consider(hand, play, area, tops, singles, tm_pile, repl_n, played, w, best, best_play, work):
    """Keep ``play`` in ``best_play`` if it scores above ``best[0]`` (area in ``best[1]``)."""
    v = _score(hand, play, area, tops, singles, tm_pile, repl_n, played, w)
    if w[W_SIM] != 0.0:
        wh, wt, buf = work
        v += w[W_SIM] * future_turns(
            hand, play, area, tops, singles, tm_pile, w[W_GAMMA], w[W_SIM_TM], wh, wt, buf
        )
    if v > best[0]:
        best[0] = v
        best[1] = area
        best_play[:] = play


@kernel(inline="always")
def _hand_counts(hand):
    """``(hn, hcol, hnum)`` of a hand's number cards: the count of each number (index
    1..15), of each colour, and in all."""
    hn = np.zeros(NUM_NUMBERS + 2, np.int64)
    hcol = np.zeros(NUM_COLOURS, np.int64)
    hnum = 0
    for k in range(COPY_KIND):
        if hand[k] != 0:
            hn[k % NUM_NUMBERS + 1] += 1
            hcol[k // NUM_NUMBERS] += 1
            hnum += 1
    return hn, hcol, hnum


@kernel(inline="always")
def _consider_singles(hand, play, tops, singles, tm_pile, repl_n, played, w, best, best_play, work):
    """Weigh each number card of the hand played alone on its colour's Single area."""
    for k in range(COPY_KIND):
        if hand[k] == 0:
            continue
        n = k % NUM_NUMBERS + 1
        a = single_area_of(singles, k // NUM_NUMBERS)
        if n > tops[a]:
            play[:] = 0
            play[k] = 1
            _consider(
                hand, play, np.int64(a), tops, singles, tm_pile, repl_n, played, w, best, best_play, work
            )


@kernel(inline="always")
def _consider_sets(hand, hn, ch, play, tops, singles, tm_pile, repl_n, played, w, best, best_play, work):
    """Weigh each set of each number: number cards first (colour order), copies to fill."""
    for area in (PAIR, THREE, FOUR):
        size = set_size(area)
        for n in range(np.int64(tops[area]) + 1, NUM_NUMBERS + 1):
            if hn[n] == 0 or hn[n] + ch < size:
                continue
            play[:] = 0
            play[COPY_KIND] = take_number(hand, play, n - 1, size)
            _consider(
                hand, play, np.int64(area), tops, singles, tm_pile, repl_n, played, w, best, best_play, work
            )


@kernel(inline="always")
def _consider_straights(hand, hn, play, tops, singles, tm_pile, repl_n, played, w, best, best_play, work):
    """Weigh the straights of the smallest legal length from each start, each number's
    lowest-valued card."""
    need = count_needed(tops[STRAIGHT])
    for lo in range(1, NUM_NUMBERS - need + 2):
        ok = True
        for n in range(lo, lo + need):
            if hn[n] == 0:
                ok = False
        if not ok:
            continue
        play[:] = 0
        for n in range(lo, lo + need):
            take_number(hand, play, n - 1, 1)  # the lowest-valued card: the first colour held
        _consider(
            hand, play, np.int64(STRAIGHT), tops, singles, tm_pile, repl_n, played, w, best, best_play, work
        )


@kernel(inline="always")
def _consider_flushes(hand, hcol, ch, play, tops, singles, tm_pile, repl_n, played, w, best, best_play, work):
    """Weigh the flushes of the smallest legal length: the lowest cards of each colour,
    copies to fill."""
    need = count_needed(tops[FLUSH])
    for c in range(NUM_COLOURS):
        if hcol[c] == 0 or hcol[c] + ch < need:
            continue
        play[:] = 0
        play[COPY_KIND] = take_colour(hand, play, c, need)
        _consider(
            hand, play, np.int64(FLUSH), tops, singles, tm_pile, repl_n, played, w, best, best_play, work
        )


@kernel
def strong_decide_r(e, mask, w):
    """The strong bot's action with weight vector ``w`` (see the module docstring)."""
    seat = e.current
    hand = e.hand[seat]
    tops = e.area_top
    singles = e.cfg_singles
    tm_pile = np.int64(e.tm_pile)
    repl_n = np.int64(e.repl_n)
    played = e.played
    work = (np.zeros(NUM_KINDS, np.uint8), np.zeros(tops.shape[0], np.int8), np.zeros(NUM_KINDS, np.uint8))
    play = np.zeros(NUM_KINDS, np.uint8)
    best_play = np.zeros(NUM_KINDS, np.uint8)
    best = np.array([-1.0e18, -1.0])
    hn, hcol, hnum = _hand_counts(hand)
    ch = np.int64(hand[COPY_KIND])
    _consider_singles(hand, play, tops, singles, tm_pile, repl_n, played, w, best, best_play, work)
    _consider_sets(hand, hn, ch, play, tops, singles, tm_pile, repl_n, played, w, best, best_play, work)
    _consider_straights(hand, hn, play, tops, singles, tm_pile, repl_n, played, w, best, best_play, work)
    _consider_flushes(hand, hcol, ch, play, tops, singles, tm_pile, repl_n, played, w, best, best_play, work)
    # any: the lowest-valued cards
    need = count_needed(tops[ANY])
    if hnum >= 1 and hnum + ch >= need:
        play[:] = 0
        left = need
        for n in range(1, NUM_NUMBERS + 1):
            for c in range(NUM_COLOURS):
                k = c * NUM_NUMBERS + n - 1
                if hand[k] != 0 and left > 0:
                    play[k] = 1
                    left -= 1
        play[COPY_KIND] = left
        _consider(hand, play, np.int64(ANY), tops, singles, tm_pile, repl_n, played, w, best, best_play, work)
    if best[1] < 0 or (e.sel_n == 0 and best[0] < -w[W_TM_PLAY] and mask[PLAY_TIME_MAGIC] != 0):
        if e.sel_n > 0:
            return first_legal(mask)
        return _rescue(mask)
    return play_step(e, best_play, np.int64(best[1]), mask)


@kernel
def strong_bot_r(e, mask, rng, r):
    """The strong scripted bot (see the module docstring)."""
    return strong_decide_r(e, mask, STRONG_WEIGHTS)


@kernel
def bot_action_r(e, bot_id, masks, row, rng, r):
    """:func:`bot_action_r` for the acting seat of the env record ``e``."""
    mask = masks[row]
    if bot_id == NPC:
        return npc_bot_r(e, mask, rng, r)
    if bot_id == STRONG:
        return strong_bot_r(e, mask, rng, r)
    return random_bot_r(e, mask, rng, r)


__all__ = ["BOT_NAMES", "BOT_IDS", "bot_action_r", "NUM_ACTIONS"]
