"""Exhaust's rules as numba kernels over the State record array (``state.py``).

Every kernel takes the State and the env index ``i`` (batch axis) and touches only that
env, or works on plain count arrays (``hand``/``sel``: (61,) uint8 counts per card kind;
``tops``: (10,) int8 area tops) so it can be tested on its own. Rules implemented
(``rules/exhaust.md``):

- a turn is exactly one action: cast one or more spell cards onto one combo area
  (built card by card as a *selection*), play a Time Magic card, or (long game) flip the
  own face-up Exhaust card;
- number-restricted areas (Single, Pair, 3 cards, 4 cards) take a number strictly greater
  than every number already there; count-restricted areas (Straight, Flush, Any) take a
  first play of at least 3 cards, then strictly more cards than the previous play;
- Single: one number card of the area's colour(s); Pair / 3 / 4 cards: that many cards of
  one number; Straight: >= 3 consecutive numbers, each once, any colours, no copy;
  Flush: >= 3 cards of one colour; Any: >= 3 cards. A copy card copies one number card it
  is played with: never alone, never in a Single or a Straight, never in a play of copies
  only;
- rewards: Pair 1 spell card from the replenishment deck, 3 cards 1 Time Magic, 4 cards 2,
  Straight / Flush / Any 1, each only as far as the pile holds;
- the seat to act that can do nothing loses at once and the round ends; long game: it
  receives an Exhaust card, a second one loses the game, otherwise the cards are
  reshuffled and redealt and it starts the next round;
- solo: after every player turn the NPC takes its turn inside the kernel
  (:func:`npc_turn`).

The selection mask (:func:`play_mask`) admits a card only if the selection plus that
card can still be completed into a legal play from the hand, and a cast only if the
selection is a legal play on that area now; so no agent is ever stuck mid-selection and
a turn takes at most ``hand size + 1`` steps.
"""

from __future__ import annotations

import numpy as np

from tabletop_core.jit import kernel
from tabletop_core.rng import shuffle_prefix

from .spec import (
    ANY,
    CAST_OFFSET,
    COPY_KIND,
    FLIP_EXHAUST,
    FLUSH,
    FOUR,
    MAX_SINGLES,
    MIN_COUNT_PLAY,
    NPC_HAND,
    NPC_SEAT,
    NUM_AREAS,
    NUM_CARDS,
    NUM_COLOURS,
    NUM_KINDS,
    NUM_NUMBER_CARDS,
    NUM_NUMBERS,
    PAIR,
    PLAY_TIME_MAGIC,
    REPLENISH_SIZE,
    STRAIGHT,
    THREE,
    TIME_MAGIC_CARDS,
    Mode,
    Status,
)

_PLAYING = int(Status.PLAYING)
_OVER = int(Status.OVER)
_LONG = int(Mode.LONG)
_SOLO = int(Mode.SOLO)


# --- card helpers -----------------------------------------------------------------------
@kernel
def card_kind(card):
    """Kind (0..60) of a physical card id (0..63): number cards keep their id, copies 60."""
    return card if card < NUM_NUMBER_CARDS else COPY_KIND


@kernel
def colour_accepted(singles, area, colour):
    """Whether Single ``area`` (0..3) accepts ``colour`` with ``singles`` Single areas in use
    (4: one per colour; 2: area 0 red+yellow, area 1 blue+green; 1: every colour)."""
    if area >= singles:
        return False
    if singles == 4:
        return colour == area
    if singles == 2:
        return colour % 2 == area
    return True


@kernel
def single_area_of(singles, colour):
    """The Single area taking ``colour``."""
    if singles == 4:
        return colour
    if singles == 2:
        return colour % 2
    return 0


@kernel
def set_size(area):
    """Cards of a set area (Pair 2, 3 cards 3, 4 cards 4), else 0."""
    if area == PAIR:
        return 2
    if area == THREE:
        return 3
    if area == FOUR:
        return 4
    return 0


@kernel
def count_needed(top):
    """Cards a play on a count-restricted area needs: 3 first, then one more than the last."""
    return max(MIN_COUNT_PLAY, np.int64(top) + 1)


@kernel
def hand_tables(hand, hn, hcol):
    """Fill ``hn`` (16,) number-card counts per number (index 1..15) and ``hcol`` (4,) per
    colour from ``hand`` (61,) counts; return the count of number cards."""
    hn[:] = 0
    hcol[:] = 0
    total = 0
    for k in range(NUM_NUMBER_CARDS):
        c = hand[k]
        if c != 0:
            hn[k % NUM_NUMBERS + 1] += c
            hcol[k // NUM_NUMBERS] += c
            total += c
    return total


# --- the play rules -----------------------------------------------------------------------
# A selection is summarised as (m, cc, num, col, lo, hi, dup): m number cards, cc copies,
# num = their common number (-2 none, -1 mixed), col = common colour (-2 none, -1 mixed),
# lo / hi = lowest / highest number, dup = two number cards share a number.


@kernel
def _summary_add(summ, kind, selnum):
    """Summary of a selection plus one card of ``kind`` (``selnum`` (16,): number counts of
    the selection before the card)."""
    m, cc, num, col, lo, hi, dup = summ
    if kind == COPY_KIND:
        return (m, cc + 1, num, col, lo, hi, dup)
    n = kind % NUM_NUMBERS + 1
    c = kind // NUM_NUMBERS
    if num == -2:
        num = n
    elif num != n:
        num = -1
    if col == -2:
        col = c
    elif col != c:
        col = -1
    if selnum[n] > 0:
        dup = True
    return (m + 1, cc, num, col, min(lo, n), max(hi, n), dup)


@kernel
def completable(summ, area, top, singles, hn, hcol, ch, hnum):
    """Whether a selection (summary ``summ``, a sub-multiset of the hand) can be completed
    from the hand into a legal play on ``area`` whose top is ``top``.

    ``hn`` (16,) / ``hcol`` (4,) / ``ch`` / ``hnum``: the hand's number-card counts per
    number and per colour, its copies and its number cards (:func:`hand_tables`).
    rules/exhaust.md "Combo areas".
    """
    m, cc, num, col, lo, hi, dup = summ
    total = m + cc
    if area < MAX_SINGLES:
        return total == 1 and m == 1 and colour_accepted(singles, area, col) and num > top
    k = set_size(area)
    if k > 0:
        if total > k or num == -1:
            return False
        if m >= 1:
            if num <= top:
                return False
            return max(cc, k - hn[num]) <= min(ch, k - m)
        for n in range(np.int64(top) + 1, NUM_NUMBERS + 1):
            if hn[n] >= 1 and max(cc, k - hn[n]) <= min(ch, k - 1):
                return True
        return False
    need = count_needed(top)
    if area == STRAIGHT:
        if cc > 0 or m == 0 or dup:
            return False
        for n in range(lo, hi + 1):
            if hn[n] == 0:
                return False
        a = lo
        while a > 1 and hn[a - 1] > 0:
            a -= 1
        b = hi
        while b < NUM_NUMBERS and hn[b + 1] > 0:
            b += 1
        return b - a + 1 >= need
    if area == FLUSH:
        if col == -1:
            return False
        if m >= 1:
            return hcol[col] + ch >= need
        for c in range(NUM_COLOURS):  # noqa: SIM110 (numba: no generator in any())
            if hcol[c] >= 1 and hcol[c] + ch >= need:
                return True
        return False
    # ANY
    return hnum >= 1 and hnum + ch >= need


@kernel
def castable(summ, area, top, singles):
    """Whether a selection (summary ``summ``) is a legal play on ``area`` (top ``top``) now.
    rules/exhaust.md "Combo areas"."""
    m, cc, num, col, lo, hi, dup = summ
    total = m + cc
    if m == 0:
        return False
    if area < MAX_SINGLES:
        return total == 1 and colour_accepted(singles, area, col) and num > top
    k = set_size(area)
    if k > 0:
        return total == k and num >= 1 and num > top
    need = count_needed(top)
    if total < need:
        return False
    if area == STRAIGHT:
        return cc == 0 and not dup and hi - lo + 1 == m
    if area == FLUSH:
        return col >= 0
    return True


@kernel
def _empty_summary(copies):
    """Summary of a selection of ``copies`` copy cards (typed int64 throughout, so every
    summary has one numba type)."""
    return (np.int64(0), copies, np.int64(-2), np.int64(-2), np.int64(99), np.int64(-1), False)


@kernel
def selection_summary(sel, selnum):
    """Summary tuple of selection ``sel`` (61,) counts; fills ``selnum`` (16,) per number."""
    selnum[:] = 0
    summ = _empty_summary(np.int64(sel[COPY_KIND]))
    for k in range(NUM_NUMBER_CARDS):
        for _ in range(sel[k]):
            summ = _summary_add(summ, k, selnum)
            selnum[k % NUM_NUMBERS + 1] += 1
    return summ


@kernel
def play_mask(hand, sel, tops, singles, out):
    """Selection mask: ``out[k]`` (k < 61) = 1 if one more card of kind ``k`` can join the
    selection and the result can still be completed into a legal play from ``hand``;
    ``out[61 + a]`` = 1 if the selection is a legal play on area ``a`` now. ``out`` is
    int8 of length >= 71; the entries written are set to 0 or 1. Returns the count of ones.

    ``hand`` / ``sel`` (61,) uint8 counts (``sel`` <= ``hand``), ``tops`` (10,) area tops,
    ``singles`` the Single areas in use.
    """
    hn = np.zeros(NUM_NUMBERS + 2, np.int64)
    hcol = np.zeros(NUM_COLOURS, np.int64)
    selnum = np.zeros(NUM_NUMBERS + 2, np.int64)
    hnum = hand_tables(hand, hn, hcol)
    ch = np.int64(hand[COPY_KIND])
    summ = selection_summary(sel, selnum)
    count = 0
    for k in range(NUM_KINDS):
        out[k] = 0
        if hand[k] <= sel[k]:
            continue
        s2 = _summary_add(summ, k, selnum)
        for a in range(NUM_AREAS):
            if completable(s2, a, tops[a], singles, hn, hcol, ch, hnum):
                out[k] = 1
                count += 1
                break
    for a in range(NUM_AREAS):
        out[CAST_OFFSET + a] = 0
        if castable(summ, a, tops[a], singles):
            out[CAST_OFFSET + a] = 1
            count += 1
    return count


@kernel
def has_play(hand, tops, singles):
    """Whether ``hand`` (61,) holds at least one legal play on some area."""
    hn = np.zeros(NUM_NUMBERS + 2, np.int64)
    hcol = np.zeros(NUM_COLOURS, np.int64)
    selnum = np.zeros(NUM_NUMBERS + 2, np.int64)
    hnum = hand_tables(hand, hn, hcol)
    ch = np.int64(hand[COPY_KIND])
    empty = _empty_summary(np.int64(0))
    for k in range(NUM_KINDS):
        if hand[k] == 0:
            continue
        s2 = _summary_add(empty, k, selnum)
        for a in range(NUM_AREAS):
            if completable(s2, a, tops[a], singles, hn, hcol, ch, hnum):
                return True
    return False


@kernel
def can_act(s, i, seat):
    """Whether ``seat`` can take an action at the start of its turn: a spell-card play, a
    Time Magic card, or (long game) a face-up Exhaust card to flip. rules/exhaust.md "A turn"."""
    e = s[i]
    if e.tm[seat] > 0 or e.exhaust_up[seat] != 0:
        return True
    return has_play(e.hand[seat], e.area_top, e.cfg_singles)


@kernel
def legal_mask(s, i, out):
    """Write the action mask of env ``i`` into ``out`` ((73,) int8); return the count.

    All zeros once the episode is over; otherwise at least one entry is set. Time Magic
    and the Exhaust flip are offered only with an empty selection.
    """
    e = s[i]
    if e.status != _PLAYING:
        out[:] = 0
        return 0
    seat = e.current
    n = play_mask(e.hand[seat], e.sel, e.area_top, e.cfg_singles, out)
    out[PLAY_TIME_MAGIC] = 0
    out[FLIP_EXHAUST] = 0
    if e.sel_n == 0:
        if e.tm[seat] > 0:
            out[PLAY_TIME_MAGIC] = 1
            n += 1
        if e.exhaust_up[seat] != 0:
            out[FLIP_EXHAUST] = 1
            n += 1
    return n


@kernel
def is_legal(s, i, action):
    """Whether ``action`` (any int) is legal for the seat to act in env ``i``."""
    if action < 0 or action > FLIP_EXHAUST:
        return False
    mask = np.zeros(FLIP_EXHAUST + 1, np.int8)
    legal_mask(s, i, mask)
    return mask[action] != 0


# --- dealing ------------------------------------------------------------------------------
@kernel
def _give(s, i, seat, card):
    e = s[i]
    e.hand[seat, card_kind(card)] += 1
    e.hand_n[seat] += 1


@kernel
def deal_round(s, i, starter):
    """Shuffle all 64 spell cards and deal a round (rules/exhaust.md "Setup"): each seat
    ``cfg_hand_size`` cards (solo: the player 15, then ``cfg_npc_deck`` cards to the NPC
    deck), then 4 to the replenishment deck; the rest stay out unseen. Time Magic goes
    back to the pile, the areas are cleared, held Exhaust cards are face up again and
    ``starter`` is to act. Consumes 63 draws of the env's stream."""
    e = s[i]
    for k in range(NUM_CARDS):
        e.deck[k] = k
    shuffle_prefix(s.rng, i, e.deck, NUM_CARDS)
    e.hand[:, :] = 0
    e.hand_n[:] = 0
    e.sel[:] = 0
    e.sel_n = 0
    e.played[:] = 0
    e.area_top[:] = 0
    e.area_n[:] = 0
    e.area_cards[:, :] = 0
    e.area_start[:, :] = 0
    e.tm[:] = 0
    e.tm_pile = TIME_MAGIC_CARDS
    pos = 0
    dealt_seats = 1 if e.cfg_mode == _SOLO else e.cfg_seats
    for seat in range(dealt_seats):
        for _ in range(e.cfg_hand_size):
            _give(s, i, seat, e.deck[pos])
            pos += 1
    e.npc_deck[:] = 0
    e.npc_n = 0
    if e.cfg_mode == _SOLO:
        for k in range(e.cfg_npc_deck):
            e.npc_deck[k] = e.deck[pos]
            pos += 1
        e.npc_n = e.cfg_npc_deck
    for k in range(REPLENISH_SIZE):
        e.repl[k] = e.deck[pos]
        pos += 1
    e.repl_n = REPLENISH_SIZE
    for seat in range(e.exhaust_up.shape[0]):
        e.exhaust_up[seat] = 1 if e.exhaust[seat] > 0 else 0
    e.current = starter
    e.turn = 0


@kernel
def deal(s, i):
    """Start a new episode in env ``i`` with its own generator and options: no Exhaust
    cards, round 0, ``cfg_start`` to act (:func:`deal_round`)."""
    e = s[i]
    e.exhaust[:] = 0
    e.exhaust_up[:] = 0
    e.round = 0
    e.loser = -1
    e.last_loser = -1
    e.status = _PLAYING
    deal_round(s, i, e.cfg_start)


# --- acting -------------------------------------------------------------------------------
@kernel
def cast(s, i, seat, area, play):
    """Move the cards ``play`` (61,) counts from ``seat``'s hand onto ``area`` and take the
    area's reward (rules/exhaust.md "Combo areas"): Pair 1 spell card from the
    replenishment deck (to the hand; the NPC's goes face down on top of its deck),
    3 cards 1 Time Magic, 4 cards 2, Straight / Flush / Any 1, as far as the piles go.
    The play must be legal (unchecked)."""
    e = s[i]
    total = 0
    number = 0
    first = np.int64(e.area_n[area])
    for j in range(NUM_KINDS):
        # number order (then colour order, copies last) so an area reads as played
        k = j
        if j < COPY_KIND:
            k = (j % NUM_COLOURS) * NUM_NUMBERS + j // NUM_COLOURS
        c = np.int64(play[k])
        if c == 0:
            continue
        if k < COPY_KIND:
            number = max(number, k % NUM_NUMBERS + 1)
        e.hand[seat, k] -= c
        e.played[k] += c
        for _ in range(c):
            e.area_cards[area, e.area_n[area]] = k
            e.area_n[area] += 1
        total += c
    e.area_start[area, first] = 1
    e.hand_n[seat] -= total
    if area <= FOUR:
        e.area_top[area] = number
    else:
        e.area_top[area] = total
    if area == PAIR:
        if e.repl_n > 0:
            card = e.repl[e.repl_n - 1]
            e.repl_n -= 1
            if e.cfg_mode == _SOLO and seat == NPC_SEAT:
                e.npc_deck[e.npc_n] = card
                e.npc_n += 1
            else:
                _give(s, i, seat, card)
        return
    gain = 0
    if area == FOUR:
        gain = 2
    elif area >= THREE:
        gain = 1
    gain = min(gain, np.int64(e.tm_pile))
    e.tm[seat] += gain
    e.tm_pile -= gain


@kernel
def _npc_draw(s, i):
    e = s[i]
    e.npc_n -= 1
    _give(s, i, np.int64(NPC_SEAT), e.npc_deck[e.npc_n])
    e.npc_deck[e.npc_n] = 0


@kernel
def npc_choose(hand, tops, singles, play):
    """The NPC's play from ``hand`` (61,) counts (rules/exhaust.md "Solo rules"): write the
    cards into ``play`` (61,) and return the area, or -1 when no area accepts a play.

    Priority Single > 4 cards > 3 cards > Pair > Straight > Flush > Any. Within an area
    the lowest numbers; ties between colours go red, blue, yellow, green. Sets use number
    cards first and copies only to fill; count areas take the smallest legal count:
    Straight the lowest run, Flush the colour needing the fewest copies, then the
    lexicographically lowest numbers; Any the lowest-numbered cards, copies last.
    """
    play[:] = 0
    hn = np.zeros(NUM_NUMBERS + 2, np.int64)
    hcol = np.zeros(NUM_COLOURS, np.int64)
    hnum = hand_tables(hand, hn, hcol)
    ch = np.int64(hand[COPY_KIND])
    # Single: lowest number, colour order
    for n in range(1, NUM_NUMBERS + 1):
        for c in range(NUM_COLOURS):
            k = c * NUM_NUMBERS + n - 1
            if hand[k] != 0:
                a = single_area_of(singles, c)
                if n > tops[a]:
                    play[k] = 1
                    return a
    # sets, 4 > 3 > Pair
    for area in (FOUR, THREE, PAIR):
        size = set_size(area)
        for n in range(np.int64(tops[area]) + 1, NUM_NUMBERS + 1):
            if hn[n] >= 1 and hn[n] + ch >= size:
                left = size
                for c in range(NUM_COLOURS):
                    k = c * NUM_NUMBERS + n - 1
                    if hand[k] != 0 and left > 0:
                        play[k] = 1
                        left -= 1
                play[COPY_KIND] = left
                return area
    # Straight: lowest run of the smallest legal length
    need = count_needed(tops[STRAIGHT])
    for lo in range(1, NUM_NUMBERS - need + 2):
        ok = True
        for n in range(lo, lo + need):
            if hn[n] == 0:
                ok = False
                break
        if ok:
            for n in range(lo, lo + need):
                for c in range(NUM_COLOURS):
                    k = c * NUM_NUMBERS + n - 1
                    if hand[k] != 0:
                        play[k] = 1
                        break
            return STRAIGHT
    # Flush
    need = count_needed(tops[FLUSH])
    best = -1
    best_copies = 99
    for c in range(NUM_COLOURS):
        if hcol[c] == 0 or hcol[c] + ch < need:
            continue
        copies = max(0, need - hcol[c])
        better = False
        if copies < best_copies:
            better = True
        elif copies == best_copies:
            # lexicographic comparison of the ascending numbers used
            cnt = need - copies
            na = 1
            nb = 1
            for _ in range(cnt):
                while hand[c * NUM_NUMBERS + na - 1] == 0:
                    na += 1
                while hand[best * NUM_NUMBERS + nb - 1] == 0:
                    nb += 1
                if na != nb:
                    better = na < nb
                    break
                na += 1
                nb += 1
        if better:
            best = c
            best_copies = copies
    if best >= 0:
        left = need - best_copies
        for n in range(1, NUM_NUMBERS + 1):
            k = best * NUM_NUMBERS + n - 1
            if hand[k] != 0 and left > 0:
                play[k] = 1
                left -= 1
        play[COPY_KIND] = best_copies
        return FLUSH
    # Any
    need = count_needed(tops[ANY])
    if hnum >= 1 and hnum + ch >= need:
        left = need
        for n in range(1, NUM_NUMBERS + 1):
            for c in range(NUM_COLOURS):
                k = c * NUM_NUMBERS + n - 1
                if hand[k] != 0 and left > 0:
                    play[k] = 1
                    left -= 1
        play[COPY_KIND] = left
        return ANY
    return -1


@kernel
def npc_turn(s, i):
    """The NPC's turn in solo mode (rules/exhaust.md "Solo rules"): draw the open hand up
    to 5, play by :func:`npc_choose`, else draw one card at a time until a play fits or the
    deck is empty, else play a Time Magic card; with nothing to do the NPC loses
    (``status`` over, ``loser`` = 1)."""
    e = s[i]
    while e.hand_n[NPC_SEAT] < NPC_HAND and e.npc_n > 0:
        _npc_draw(s, i)
    play = np.zeros(NUM_KINDS, np.uint8)
    while True:
        area = npc_choose(e.hand[NPC_SEAT], e.area_top, e.cfg_singles, play)
        if area >= 0:
            cast(s, i, np.int64(NPC_SEAT), area, play)
            return
        if e.npc_n == 0:
            break
        _npc_draw(s, i)
    if e.tm[NPC_SEAT] > 0:
        e.tm[NPC_SEAT] -= 1
        e.tm_pile += 1
        return
    e.status = _OVER
    e.loser = NPC_SEAT


@kernel
def lose_round(s, i, seat):
    """``seat`` cannot act: it loses the round (rules/exhaust.md "End of a game"). Long
    game: it receives an Exhaust card; with two the episode ends, otherwise a new round is
    dealt and ``seat`` starts it."""
    e = s[i]
    if e.cfg_mode == _LONG:
        e.exhaust[seat] += 1
        if e.exhaust[seat] < 2:
            e.last_loser = seat
            e.round += 1
            deal_round(s, i, seat)
            return
    e.status = _OVER
    e.loser = seat


@kernel
def end_turn(s, i):
    """Pass the turn (solo: the NPC plays first, then the player) and check that the next
    seat can act; if it cannot, it loses (:func:`lose_round`)."""
    e = s[i]
    e.turn += 1
    if e.cfg_mode == _SOLO:
        npc_turn(s, i)
        if e.status != _PLAYING:
            return
        e.turn += 1
        nxt = 0
    else:
        nxt = (e.current + 1) % e.cfg_seats
    e.current = nxt
    if not can_act(s, i, nxt):
        lose_round(s, i, nxt)


@kernel
def apply_action(s, i, action):
    """Apply a LEGAL ``action`` for the seat to act in env ``i`` (check with
    :func:`is_legal` or the mask first: an illegal action is undefined behaviour).
    Returns 1 if the action ended the turn, 0 for an add to the selection."""
    e = s[i]
    seat = e.current
    if action < CAST_OFFSET:
        e.sel[action] += 1
        e.sel_n += 1
        return 0
    if action < PLAY_TIME_MAGIC:
        cast(s, i, np.int64(seat), np.int64(action - CAST_OFFSET), e.sel)
        e.sel[:] = 0
        e.sel_n = 0
    elif action == PLAY_TIME_MAGIC:
        e.tm[seat] -= 1
        e.tm_pile += 1
    else:
        e.exhaust_up[seat] = 0
    end_turn(s, i)
    return 1


@kernel
def write_rewards(s, i, out):
    """Per-agent rewards of the step that just happened into ``out`` (row of (B, P)).

    0 while the episode runs (a long game's rounds pay nothing: the final outcome counts).
    At the end: the loser -1 and every other seat +1, or +1/(N-1) with ``cfg_zero_sum``;
    solo: +1 if the NPC lost, -1 if the player did.
    """
    e = s[i]
    for k in range(out.shape[0]):
        out[k] = 0.0
    if e.status == _PLAYING:
        return
    if e.cfg_mode == _SOLO:
        out[0] = 1.0 if e.loser == NPC_SEAT else -1.0
        return
    n = e.cfg_agents
    win = 1.0
    if e.cfg_zero_sum != 0:
        win = 1.0 / (n - 1)
    for k in range(n):
        out[k] = -1.0 if k == e.loser else win
