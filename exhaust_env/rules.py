"""Exhaust's rules as numba kernels over the State record array (``state.py``).

Every kernel takes one env's record ``e = s[i]`` (``*_r``: a record carries no reference
count for numba to update; from Python, on env ``i`` of a State in place:
``tabletop_core.kernel.records.at(kernel_r, s, i, ...)``), or works on plain count arrays (``hand``/``sel``:
(61,) uint8 counts per card kind; ``tops``: (10,) int8 area tops) or on card sets as
64-bit words (:mod:`exhaust_env.bits`) so it can be tested on its own. Rules implemented
(``docs/rules/exhaust.md``):

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

The selection mask (:func:`play_mask`, :func:`selection_words`) admits a card only if
the selection plus that card can still be completed into a legal play from the hand, and
a cast only if the selection is a legal play on that area now; so no agent is ever stuck
mid-selection and a turn takes at most ``hand size + 1`` steps. It is decided with bit
arithmetic on the hand and selection as card sets (one closed-form test per area kind),
equal to the brute-force enumeration of plays (tests/test_exhaust_differential.py).
"""

from __future__ import annotations

import numpy as np

from tabletop_core.kernel.bits import stack_u64, write_bits_row
from tabletop_core.kernel.jit import kernel
from tabletop_core.kernel.rng import shuffle_word

from .bits import (
    NUMBERS_MASK,
    SPREAD,
    bit_length,
    colour_slice,
    lowest_bit,
    nonzero_bits,
    numbers_of,
    popcount,
)
from .spec import (
    ANY,
    CAST_OFFSET,
    COPY_KIND,
    FLIP_EXHAUST,
    FLUSH,
    FOUR,
    MIN_COUNT_PLAY,
    NPC_HAND,
    NPC_SEAT,
    NUM_ACTIONS,
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


# --- the play rules -----------------------------------------------------------------------
# The selection mask works on card sets as 64-bit words (:mod:`exhaust_env.bits`): bit k
# for number card kind k, colour c the 15-bit slice at 15 * c, a set of numbers a 15-bit
# word (bit n - 1 for number n). Legal actions are two words: ``w0`` bit a = action a
# (0..63), ``w1`` bit a - 64 = action a (64..72); the adds are bits 0..60 of ``w0``
# (bit 60: a copy) and the casts the 10 bits from 61.

_U0 = np.uint64(0)
_U1 = np.uint64(1)
_SPREAD = np.uint64(SPREAD)
_COPY_BIT = np.uint64(1 << COPY_KIND)
_CAST_SHIFT = np.uint64(CAST_OFFSET)
_W1_SHIFT = np.uint64(64 - CAST_OFFSET)  # casts >> this: the casts of w1 (actions 64..70)
_TM_BIT = np.uint64(1 << (PLAY_TIME_MAGIC - 64))
_FLIP_BIT = np.uint64(1 << (FLIP_EXHAUST - 64))
# numbers above a number-area top t (0..15)
_ABOVE = np.array([NUMBERS_MASK & ~((1 << t) - 1) for t in range(NUM_NUMBERS + 1)], np.uint64)
# the cards of one colour
_COLOUR_CARDS = np.array([NUMBERS_MASK << (NUM_NUMBERS * c) for c in range(NUM_COLOURS)], np.uint64)


@kernel
def card_word(counts):
    """The number cards of ``counts`` ((61,) C-contiguous counts per kind) as a card set
    (uint64): bit k set where ``counts[k]`` is nonzero (each number card exists once).
    Two 32-byte vector compares: kinds 0..31 and 28..59."""
    return nonzero_bits(counts, 0, 32) | (nonzero_bits(counts, 28, 32) << np.uint64(28))


@kernel
def _above(top):
    """Numbers (15-bit set) strictly above the number-area top ``top``."""
    return _ABOVE[min(max(np.int64(top), 0), NUM_NUMBERS)]


@kernel
def _run_starts(nums, need):
    """Lowest numbers (as bits) of the runs of ``need`` consecutive numbers of ``nums``."""
    if need > NUM_NUMBERS:
        return _U0
    starts = nums
    for j in range(1, need):
        starts &= nums >> np.uint64(j)
    return starts


@kernel
def _runs_at_least(nums, need):
    """The numbers of ``nums`` (15-bit set) lying in a run of at least ``need``
    consecutive numbers of ``nums``."""
    starts = _run_starts(nums, need)
    out = starts
    for j in range(1, need):
        out |= starts << np.uint64(j)
    return out


@kernel
def _run_through(nums, n):
    """The run of consecutive numbers of ``nums`` (15-bit set) containing number ``n``
    (held), as a 15-bit set."""
    b = np.uint64(n - 1)
    end = np.int64(b) + lowest_bit(~(nums >> b))  # one past the run's highest bit
    start = bit_length(~nums & ((_U1 << b) - _U1))  # the run's lowest bit
    return ((_U1 << np.uint64(end)) - _U1) & ~((_U1 << np.uint64(start)) - _U1)


@kernel
def _set_numbers(at_least, size, copies, top):
    """Numbers (15-bit set) above ``top`` of which the hand holds a card and, with its
    ``copies``, ``size`` cards (``at_least[j]``: numbers held at least j times)."""
    j = max(1, size - copies)
    if j > NUM_COLOURS:
        return _U0
    return at_least[j] & _above(top)


@kernel
def _count_tables(cards):
    """``(held, at_least)``: the numbers held (15-bit set) in the card set ``cards`` and a
    5-tuple of 15-bit sets whose entry j holds the numbers held at least j times (1..4)."""
    a = colour_slice(cards, 0)
    b = colour_slice(cards, 1)
    c = colour_slice(cards, 2)
    d = colour_slice(cards, 3)
    ab = a & b
    cd = c & d
    a_b = a | b
    c_d = c | d
    return a_b | c_d, (_U0, a_b | c_d, ab | cd | (a_b & c_d), (ab & c_d) | (cd & a_b), ab & cd)


@kernel(inline="always")
def _adds_to_no_number(hand, rest, held, at_least, ch, cc, tops, singles, need_straight, need_flush):
    """``(adds, copy_ok)`` of :func:`selection_words` for a selection of ``cc`` copies and
    no number card, when the Any area cannot take the hand: the cards that start a Single,
    Straight, set or Flush, and whether a copy can still join (through a set or Flush)."""
    adds = _U0
    copy_ok = False
    if cc == 0:
        for c in range(NUM_COLOURS):
            area = single_area_of(singles, c)
            adds |= _above(tops[area]) << np.uint64(NUM_NUMBERS * c)
        adds |= _runs_at_least(held, need_straight) * _SPREAD
    for area in range(PAIR, FOUR + 1):
        size = set_size(area)
        if cc + 1 <= size:
            nums = _set_numbers(at_least, size, ch, tops[area])
            adds |= nums * _SPREAD
            if cc + 2 <= size and nums != _U0:
                copy_ok = True
    for c in range(NUM_COLOURS):
        hc = popcount(hand & _COLOUR_CARDS[c])
        if hc >= 1 and hc + ch >= need_flush:
            adds |= _COLOUR_CARDS[c]
            copy_ok = True
    return adds & rest, copy_ok


@kernel(inline="always")
def _selection_shape(sel, m):
    """What :func:`selection_words` reads of the ``m`` number cards of ``sel``: (their
    numbers as a 15-bit set, whether a number repeats, lowest and highest number, the
    shared number or -1, the shared colour or -1)."""
    sel_nums = numbers_of(sel)
    distinct = popcount(sel_nums)
    dup = distinct < m
    lo = lowest_bit(sel_nums) + 1
    hi = bit_length(sel_nums)
    num = lo if distinct == 1 else -1
    col = -2
    for c in range(NUM_COLOURS):
        if sel & _COLOUR_CARDS[c] != _U0:
            col = c if col == -2 else -1
    return sel_nums, dup, lo, hi, num, col


@kernel(inline="always")
def _selection_casts(shape, total, m, cc, tops, singles, need_straight, need_flush, need_any):
    """The ``casts`` word of :func:`selection_words` for a selection of ``m`` number cards
    and ``cc`` copies (``total`` cards) described by ``shape`` (:func:`_selection_shape`)."""
    _, dup, lo, hi, num, col = shape
    casts = 0
    if total == 1:
        for area in range(singles):
            if colour_accepted(singles, area, col) and num > tops[area]:
                casts |= 1 << area
    if num > 0:
        for area in range(PAIR, FOUR + 1):
            if total == set_size(area) and num > tops[area]:
                casts |= 1 << area
    if total >= need_straight and cc == 0 and not dup and hi - lo + 1 == m:
        casts |= 1 << STRAIGHT
    if total >= need_flush and col >= 0:
        casts |= 1 << FLUSH
    if total >= need_any:
        casts |= 1 << ANY
    return casts


@kernel(inline="always")
def _adds_to_numbers(shape, hand, rest, held, at_least, ch, cc, total, tops, need_straight, need_flush):
    """``(adds, copy_ok)`` of :func:`selection_words` for a selection holding number
    cards, when the Any area cannot take the hand: the cards that keep a set, Straight or
    Flush completable, and whether a copy can still join (through a set or Flush);
    ``shape`` describes the selection (:func:`_selection_shape`)."""
    sel_nums, dup, lo, hi, num, col = shape
    adds = _U0
    copy_ok = False
    if num > 0:
        nbit = _U1 << np.uint64(num - 1)
        for area in range(PAIR, FOUR + 1):
            size = set_size(area)
            if total + 1 <= size and _set_numbers(at_least, size, ch, tops[area]) & nbit != _U0:
                adds |= nbit * _SPREAD
                copy_ok = True
    if cc == 0 and not dup:
        span = ((_U1 << np.uint64(hi - lo + 1)) - _U1) << np.uint64(lo - 1)
        if span & ~held == _U0:
            run = _run_through(held, lo)
            if popcount(run) >= need_straight:
                adds |= (run & ~sel_nums) * _SPREAD
    if col >= 0 and popcount(hand & _COLOUR_CARDS[col]) + ch >= need_flush:
        adds |= _COLOUR_CARDS[col]
        copy_ok = True
    return adds & rest, copy_ok


@kernel
def selection_words(hand, copies, sel, sel_copies, tops, singles):
    """The selection mask as two words ``(adds, casts)``: ``adds`` bit k (k <= 60) = one
    more card of kind k can join the selection and the result can still be completed into
    a legal play from the hand; ``casts`` bit a = the selection is a legal play on area a.

    ``hand`` / ``sel``: number cards of the hand / selection as card sets (``sel`` within
    ``hand``); ``copies`` / ``sel_copies``: their copy cards; ``tops`` (10,) area tops;
    ``singles`` the Single areas in use. docs/rules/exhaust.md "Combo areas": a completion
    exists on some area iff::

      Single: the selection is empty and the card's number is above its area's top;
      Pair / 3 / 4 cards (size k): all number cards share one number above the top,
        at most k cards, and that number's cards in hand plus the copies reach k;
      Straight: no copy, no repeated number, and the numbers span a run of held numbers
        at least as long as the count needed;
      Flush: all number cards share a colour whose cards plus the copies reach the count;
      Any: the hand holds a number card and reaches the count needed.

    A copy is never alone: a selection of copies only completes through a set or Flush
    area that some number card of the hand fits.
    """
    rest = hand & ~sel
    rest_copies = copies - sel_copies
    held, at_least = _count_tables(hand)
    hnum = popcount(hand)
    need_any = count_needed(tops[ANY])
    need_straight = count_needed(tops[STRAIGHT])
    need_flush = count_needed(tops[FLUSH])
    m = popcount(sel)
    cc = np.int64(sel_copies)
    total = m + cc
    ch = np.int64(copies)
    any_ok = hnum >= 1 and hnum + ch >= need_any
    copy_ok = any_ok
    adds = rest if any_ok else _U0
    casts = 0
    if m == 0:
        if not any_ok:
            adds, copy_ok = _adds_to_no_number(
                hand, rest, held, at_least, ch, cc, tops, singles, need_straight, need_flush
            )
    else:
        shape = _selection_shape(sel, m)
        casts = _selection_casts(shape, total, m, cc, tops, singles, need_straight, need_flush, need_any)
        if not any_ok:
            adds, copy_ok = _adds_to_numbers(
                shape, hand, rest, held, at_least, ch, cc, total, tops, need_straight, need_flush
            )
    if copy_ok and rest_copies > 0:
        adds |= _COPY_BIT
    return adds, casts


@kernel
def play_mask(hand, sel, tops, singles, out):
    """Selection mask: ``out[k]`` (k < 61) = 1 if one more card of kind ``k`` can join the
    selection and the result can still be completed into a legal play from ``hand``;
    ``out[61 + a]`` = 1 if the selection is a legal play on area ``a`` now. ``out`` is
    int8 of length >= 71; the entries written are set to 0 or 1. Returns the count of ones.

    ``hand`` / ``sel`` (61,) uint8 counts (``sel`` <= ``hand``), ``tops`` (10,) area tops,
    ``singles`` the Single areas in use (:func:`selection_words`).
    """
    adds, casts = selection_words(
        card_word(hand), np.int64(hand[COPY_KIND]), card_word(sel), np.int64(sel[COPY_KIND]), tops, singles
    )
    for k in range(NUM_KINDS):
        out[k] = (adds >> np.uint64(k)) & _U1
    for a in range(NUM_AREAS):
        out[CAST_OFFSET + a] = (casts >> a) & 1
    return popcount(adds) + popcount(np.uint64(casts))


@kernel
def has_play_word(hand, copies, tops, singles):
    """Whether the hand (number cards ``hand`` as a card set, ``copies`` copy cards)
    holds at least one legal play on some area (the adds of :func:`selection_words` from
    an empty selection are not all zero)."""
    hnum = popcount(hand)
    if hnum == 0:
        return False
    ch = np.int64(copies)
    if hnum + ch >= count_needed(tops[ANY]):
        return True
    for c in range(NUM_COLOURS):
        if colour_slice(hand, c) & _above(tops[single_area_of(singles, c)]) != _U0:
            return True
    held, at_least = _count_tables(hand)
    for area in range(PAIR, FOUR + 1):
        if _set_numbers(at_least, set_size(area), ch, tops[area]) != _U0:
            return True
    if _runs_at_least(held, count_needed(tops[STRAIGHT])) != _U0:
        return True
    need = count_needed(tops[FLUSH])
    for c in range(NUM_COLOURS):
        hc = popcount(hand & _COLOUR_CARDS[c])
        if hc >= 1 and hc + ch >= need:
            return True
    return False


@kernel
def has_play(hand, tops, singles):
    """Whether ``hand`` (61,) holds at least one legal play on some area."""
    return has_play_word(card_word(hand), np.int64(hand[COPY_KIND]), tops, singles)


@kernel
def _can_act(e, seat):
    """Whether ``seat`` of the record ``e`` can take an action at the start of its turn: a
    spell-card play, a Time Magic card, or (long game) a face-up Exhaust card to flip.
    docs/rules/exhaust.md "A turn"."""
    if e.tm[seat] > 0 or e.exhaust_up[seat] != 0:
        return True
    hand = e.hand[seat]
    return has_play_word(card_word(hand), np.int64(hand[COPY_KIND]), e.area_top, e.cfg_singles)


@kernel
def legal_words_r(e):
    """The legal actions of the env record ``e`` as two words ``(w0, w1)``: bit a of ``w0`` = action
    a (0..63) is legal, bit a - 64 of ``w1`` = action a (64..72). Both 0 once the episode
    is over; otherwise at least one bit is set. Time Magic and the Exhaust flip are
    offered only with an empty selection."""
    if e.status != _PLAYING:
        return _U0, _U0
    seat = e.current
    hand = e.hand[seat]
    sel_cards = _U0
    sel_copies = np.int64(0)
    if e.sel_n != 0:
        sel_cards = card_word(e.sel[:])
        sel_copies = np.int64(e.sel[COPY_KIND])
    adds, casts = selection_words(
        card_word(hand), np.int64(hand[COPY_KIND]), sel_cards, sel_copies, e.area_top, e.cfg_singles
    )
    c = np.uint64(casts)
    w0 = adds | (c << _CAST_SHIFT)
    w1 = c >> _W1_SHIFT
    if e.sel_n == 0:
        if e.tm[seat] > 0:
            w1 |= _TM_BIT
        if e.exhaust_up[seat] != 0:
            w1 |= _FLIP_BIT
    return w0, w1


@kernel
def write_mask_row(w0, w1, masks, row):
    """Write the legal-action words ``(w0, w1)`` (:func:`legal_words_r`) into ``masks[row]``
    (``masks`` (N, 73) int8, 0 or 1; :func:`tabletop_core.kernel.bits.write_bits_row`, in vector
    stores); return the count of legal actions."""
    words = stack_u64(2)
    words[0] = w0
    words[1] = w1
    write_bits_row(words, masks, row, NUM_ACTIONS)
    return popcount(w0) + popcount(w1)


@kernel
def legal_mask_r(e, masks, row):
    """Write the action mask of the env record ``e`` into ``masks[row]`` (``masks`` (B, 73)
    int8); return the count of legal actions.

    All zeros once the episode is over; otherwise at least one entry is set. Time Magic
    and the Exhaust flip are offered only with an empty selection (:func:`legal_words_r`).
    """
    w0, w1 = legal_words_r(e)
    return write_mask_row(w0, w1, masks, row)


@kernel
def nth_legal(w0, w1, k):
    """The ``k``-th legal action (0-based, in action order) of the words ``(w0, w1)``."""
    n0 = popcount(w0)
    w = w0
    base = 0
    if k >= n0:
        w = w1
        k -= n0
        base = 64
    for _ in range(k):
        w &= w - _U1
    return base + lowest_bit(w)


@kernel
def is_legal_r(e, action):
    """Whether ``action`` (any int) is legal for the seat to act in the env record ``e``."""
    if action < 0 or action >= NUM_ACTIONS:
        return False
    w0, w1 = legal_words_r(e)
    if action < 64:
        return (w0 >> np.uint64(action)) & _U1 != _U0
    return (w1 >> np.uint64(action - 64)) & _U1 != _U0


# --- dealing ------------------------------------------------------------------------------
# The kernels take the env's record ``e = s[i]``: a record carries no reference count,
# while every call of a kernel taking the State array with further calls inside costs
# numba two atomic reference-count updates.
@kernel
def _give(e, seat, card):
    e.hand[seat, card_kind(card)] += 1
    e.hand_n[seat] += 1


@kernel
def deal_round_r(e, starter):
    """Shuffle all 64 spell cards and deal a round (docs/rules/exhaust.md "Setup"): each seat
    ``cfg_hand_size`` cards (solo: the player 15, then ``cfg_npc_deck`` cards to the NPC
    deck), then 4 to the replenishment deck; the rest stay out unseen. Time Magic goes
    back to the pile, the areas are cleared, held Exhaust cards are face up again and
    ``starter`` is to act. Consumes 63 draws of the env's stream."""
    for k in range(NUM_CARDS):
        e.deck[k] = k
    e.rng = shuffle_word(e.rng, e.deck, NUM_CARDS)
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
            _give(e, seat, e.deck[pos])
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
def deal_r(e):
    """Start a new episode in the env record ``e`` with its own generator and options: no
    Exhaust cards, round 0, ``cfg_start`` to act (:func:`deal_round_r`)."""
    e.exhaust[:] = 0
    e.exhaust_up[:] = 0
    e.round = 0
    e.loser = -1
    e.last_loser = -1
    e.status = _PLAYING
    deal_round_r(e, e.cfg_start)


# --- acting -------------------------------------------------------------------------------
@kernel(inline="always")
def _lay_r(e, seat, area, k, c, n_area):
    """Move ``c`` cards of kind ``k`` from ``seat``'s hand onto ``area``, listed from slot
    ``n_area``; returns the next free slot."""
    if c > 0:
        e.hand[seat, k] -= c
        e.played[k] += c
        for _ in range(c):
            e.area_cards[area, n_area] = k
            n_area += 1
    return n_area


@kernel
def cast(e, seat, area, play):
    """Move the cards ``play`` (61,) counts from ``seat``'s hand onto ``area`` of the env
    record ``e`` and take the area's reward (docs/rules/exhaust.md "Combo areas"): Pair 1 spell
    card from the replenishment deck (to the hand; the NPC's goes face down on top of its
    deck), 3 cards 1 Time Magic, 4 cards 2, Straight / Flush / Any 1, as far as the piles
    go. The play must be legal (unchecked). The area lists the cards in number order
    (then colour order, copies last), so it reads as played."""
    first = np.int64(e.area_n[area])
    n_area = first
    cards = card_word(play)
    nums = numbers_of(cards)
    number = bit_length(nums)  # the highest number played (0: none)
    while nums != _U0:
        n0 = lowest_bit(nums)  # number - 1
        nums &= nums - _U1
        for col in range(NUM_COLOURS):
            k = col * NUM_NUMBERS + n0
            n_area = _lay_r(e, seat, area, k, np.int64(play[k]), n_area)
    n_area = _lay_r(e, seat, area, COPY_KIND, np.int64(play[COPY_KIND]), n_area)
    total = n_area - first
    e.area_n[area] = n_area
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
                _give(e, seat, card)
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
def _npc_draw(e):
    e.npc_n -= 1
    _give(e, np.int64(NPC_SEAT), e.npc_deck[e.npc_n])
    e.npc_deck[e.npc_n] = 0


@kernel(inline="always")
def _take_run(hand, play, start, stride, count, left):
    """Add up to ``left`` held cards of ``hand`` among the ``count`` card ids ``start``,
    ``start + stride``, ... to ``play``, in that order; return how many are still missing."""
    for i in range(count):
        k = start + i * stride
        if hand[k] != 0 and left > 0:
            play[k] = 1
            left -= 1
    return left


@kernel(inline="always")
def take_number(hand, play, n0, left):
    """Add up to ``left`` held cards of number ``n0 + 1`` to ``play``, in colour order;
    return how many are still missing (filled with copy cards)."""
    return _take_run(hand, play, n0, NUM_NUMBERS, NUM_COLOURS, left)


@kernel(inline="always")
def take_colour(hand, play, c, left):
    """Add up to ``left`` held cards of colour ``c`` to ``play``, lowest numbers first;
    return how many are still missing (filled with copy cards)."""
    return _take_run(hand, play, c * NUM_NUMBERS, 1, NUM_NUMBERS, left)


@kernel(inline="always")
def _npc_flush(cards, ch, tops, play):
    """The NPC's Flush (:func:`npc_choose`): the colour needing the fewest copies, then
    the lexicographically lowest numbers; writes the play and returns FLUSH, or -1."""
    need = count_needed(tops[FLUSH])
    best = -1
    best_copies = 99
    for c in range(NUM_COLOURS):
        mine = colour_slice(cards, c)
        hc = popcount(mine)
        if hc == 0 or hc + ch < need:
            continue
        copies = max(0, need - hc)
        better = False
        if copies < best_copies:
            better = True
        elif copies == best_copies:
            # lexicographic comparison of the ascending numbers used
            theirs = colour_slice(cards, best)
            for _ in range(need - copies):
                na = lowest_bit(mine)
                nb = lowest_bit(theirs)
                if na != nb:
                    better = na < nb
                    break
                mine &= mine - _U1
                theirs &= theirs - _U1
        if better:
            best = c
            best_copies = copies
    if best >= 0:
        mine = colour_slice(cards, best)
        for _ in range(need - best_copies):
            play[best * NUM_NUMBERS + lowest_bit(mine)] = 1
            mine &= mine - _U1
        play[COPY_KIND] = best_copies
        return FLUSH
    return -1


@kernel
def npc_choose(hand, tops, singles, play):
    """The NPC's play from ``hand`` (61,) counts (docs/rules/exhaust.md "Solo rules"): write the
    cards into ``play`` (61,) and return the area, or -1 when no area accepts a play.

    Priority Single > 4 cards > 3 cards > Pair > Straight > Flush > Any. Within an area
    the lowest numbers; ties between colours go red, blue, yellow, green. Sets use number
    cards first and copies only to fill; count areas take the smallest legal count:
    Straight the lowest run, Flush the colour needing the fewest copies, then the
    lexicographically lowest numbers; Any the lowest-numbered cards, copies last.
    """
    play[:] = 0
    cards = card_word(hand)
    held, at_least = _count_tables(cards)
    hnum = popcount(cards)
    ch = np.int64(hand[COPY_KIND])
    # Single: lowest number, colour order
    fits = _U0  # numbers some held card can play on its Single area
    for c in range(NUM_COLOURS):
        fits |= colour_slice(cards, c) & _above(tops[single_area_of(singles, c)])
    if fits != _U0:
        n0 = lowest_bit(fits)  # number - 1
        for c in range(NUM_COLOURS):
            k = c * NUM_NUMBERS + n0
            a = single_area_of(singles, c)
            if hand[k] != 0 and n0 + 1 > tops[a]:
                play[k] = 1
                return a
    # sets, 4 > 3 > Pair: the lowest number held with enough copies to fill
    for area in (FOUR, THREE, PAIR):
        size = set_size(area)
        nums = _set_numbers(at_least, size, ch, tops[area])
        if nums != _U0:
            n0 = lowest_bit(nums)
            play[COPY_KIND] = take_number(hand, play, n0, size)
            return area
    # Straight: lowest run of the smallest legal length
    need = count_needed(tops[STRAIGHT])
    starts = _run_starts(held, need)
    if starts != _U0:
        lo = lowest_bit(starts)
        for n0 in range(lo, lo + need):
            for c in range(NUM_COLOURS):
                k = c * NUM_NUMBERS + n0
                if hand[k] != 0:
                    play[k] = 1
                    break
        return STRAIGHT
    if _npc_flush(cards, ch, tops, play) >= 0:
        return FLUSH
    # Any: the lowest numbers, colour order, copies last
    need = count_needed(tops[ANY])
    if hnum >= 1 and hnum + ch >= need:
        left = need
        for n0 in range(NUM_NUMBERS):
            left = take_number(hand, play, n0, left)
        play[COPY_KIND] = left
        return ANY
    return -1


@kernel
def npc_turn(e):
    """The NPC's turn in solo mode on the env record ``e`` (docs/rules/exhaust.md "Solo
    rules"): draw the open hand up to 5, play by :func:`npc_choose`, else draw one card at
    a time until a play fits or the deck is empty, else play a Time Magic card; with
    nothing to do the NPC loses (``status`` over, ``loser`` = 1)."""
    while e.hand_n[NPC_SEAT] < NPC_HAND and e.npc_n > 0:
        _npc_draw(e)
    play = np.zeros(NUM_KINDS, np.uint8)
    while True:
        area = npc_choose(e.hand[NPC_SEAT], e.area_top, e.cfg_singles, play)
        if area >= 0:
            cast(e, np.int64(NPC_SEAT), area, play)
            return
        if e.npc_n == 0:
            break
        _npc_draw(e)
    if e.tm[NPC_SEAT] > 0:
        e.tm[NPC_SEAT] -= 1
        e.tm_pile += 1
        return
    e.status = _OVER
    e.loser = NPC_SEAT


@kernel
def lose_round_r(e, seat):
    """``seat`` cannot act: it loses the round (docs/rules/exhaust.md "End of a game"). Long
    game: it receives an Exhaust card; with two the episode ends, otherwise a new round is
    dealt and ``seat`` starts it."""
    if e.cfg_mode == _LONG:
        e.exhaust[seat] += 1
        if e.exhaust[seat] < 2:
            e.last_loser = seat
            e.round += 1
            deal_round_r(e, seat)
            return
    e.status = _OVER
    e.loser = seat


@kernel
def _end_turn(e):
    """Pass the turn on the env record ``e`` (solo: the NPC plays first, then the player).
    Returns the seat now to act if it cannot act (it loses: :func:`lose_round_r`), else -1."""
    e.turn += 1
    if e.cfg_mode == _SOLO:
        npc_turn(e)
        if e.status != _PLAYING:
            return -1
        e.turn += 1
        nxt = 0
    else:
        nxt = (e.current + 1) % e.cfg_seats
    e.current = nxt
    if _can_act(e, nxt):
        return -1
    return nxt


@kernel
def act(e, action):
    """Apply a legal ``action`` on the env record ``e`` (:func:`apply_action_r` without the
    redeal): -2 for an add to the selection (the turn goes on); else the turn ended and
    the result is the seat now to act if it cannot act (the caller then runs
    :func:`lose_round_r`), or -1."""
    seat = e.current
    if action < CAST_OFFSET:
        e.sel[action] += 1
        e.sel_n += 1
        return -2
    if action < PLAY_TIME_MAGIC:
        cast(e, np.int64(seat), np.int64(action - CAST_OFFSET), e.sel[:])
        e.sel[:] = 0
        e.sel_n = 0
    elif action == PLAY_TIME_MAGIC:
        e.tm[seat] -= 1
        e.tm_pile += 1
    else:
        e.exhaust_up[seat] = 0
    return _end_turn(e)


@kernel
def apply_action_r(e, action):
    """Apply a LEGAL ``action`` for the seat to act in the env record ``e`` (check with
    :func:`is_legal_r` or the mask first: an illegal action is undefined behaviour).
    Returns 1 if the action ended the turn, 0 for an add to the selection."""
    stuck = act(e, action)
    if stuck == -2:
        return 0
    if stuck >= 0:
        lose_round_r(e, stuck)
    return 1


@kernel
def add_rewards_r(e, rewards, row):
    """Add the per-agent rewards of the step that just happened on the env record ``e`` to
    ``rewards[row]`` (``rewards`` (N, P) float)."""
    if e.status == _PLAYING:
        return
    if e.cfg_mode == _SOLO:
        rewards[row, 0] += 1.0 if e.loser == NPC_SEAT else -1.0
        return
    n = e.cfg_agents
    win = np.float32(1.0)
    if e.cfg_zero_sum != 0:
        win = np.float32(1.0 / (n - 1))  # a float32 reward, whatever the buffer's dtype
    for k in range(n):
        rewards[row, k] += np.float32(-1.0) if k == e.loser else win


@kernel
def write_rewards_r(e, rewards, row):
    """Per-agent rewards of the step that just happened on the env record ``e`` into
    ``rewards[row]`` (``rewards`` (N, P) float32).

    0 while the episode runs (a long game's rounds pay nothing: the final outcome counts).
    At the end: the loser -1 and every other seat +1, or +1/(N-1) with ``cfg_zero_sum``;
    solo: +1 if the NPC lost, -1 if the player did (:func:`add_rewards_r`).
    """
    for k in range(rewards.shape[1]):
        rewards[row, k] = 0.0
    add_rewards_r(e, rewards, row)
