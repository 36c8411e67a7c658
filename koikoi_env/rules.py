"""Koikoi's rules as numba kernels over the State record array (``state.py``).

The kernels take one env's record ``e = s[i]`` (``*_r``; from Python, on env ``i`` of
a State in place: ``tabletop_core.kernel.records.at(kernel_r, s, i, ...)``): a record is a
plain pointer, whereas an array argument passed down a
chain of calls costs numba atomic reference-count updates, which cost more than the
rules themselves. The generator word is a field of the record too (``e.rng``), so the
deal (:func:`shuffle_deck_r`) needs no array either. Rules implemented
(``docs/rules/koikoi.md``):

- "Round setup": shuffle 88, deal 8 to each seat (seat 0 first: seat k gets
  ``deck[8k:8k+8]``), then 8 face up to the field; the rest is the stock.
- "A turn": play a hand card; field cards of its rank: one -> take it, two -> the player
  chooses one (phase CHOOSE_PLAYED), three -> take all three; then step 5. No match: the
  card stays on the field and the stock's top is flipped and matched the same way (two
  matches: phase CHOOSE_FLIPPED); no match again: it stays on the field and the player
  draws ``min(2, 8 - hand, stock)`` cards (compulsory). Step 5: if the capture raised
  the seat's yaku score, phase DECIDE (koi-koi or stop).
- "Round end": a stop scores yaku x multiplier from every other seat, each payment capped
  at the payer's chips, and the stopper deals next. At the end of every turn (after a
  draw, a capture without a rise, or a koi-koi) a round ends with no score when any
  hand is empty or the stock is empty; the dealer stays. A flip that finds the stock
  empty ends the turn at once (no steps 3-4), which then ends the round.
- "Game": ``cfg_rounds`` rounds, or the end of a round after which a seat has 0 chips.

Every kernel that can end a round writes the step's chip changes to ``delta``. Every
kernel that moves a card into or out of a hand or a captured pile updates ``hand_bits`` /
``capt_bits`` with ``loc`` (:func:`sync_bits_r` rebuilds them from ``loc``).
"""

from __future__ import annotations

import numpy as np

from tabletop_core.kernel.bits import ctlz, imax
from tabletop_core.kernel.jit import kernel
from tabletop_core.kernel.rng import shuffle_word

from .bits import NUMBER_BITS, longest_run, lowest_bit, popcount
from .spec import (
    DRAW_MAX,
    FIELD_DEAL,
    GREAT_BASE,
    GREAT_MIN,
    GREAT_STEP,
    HAND_SIZE,
    KOIKOI,
    LOC_CAPTURED,
    LOC_FIELD,
    LOC_HAND,
    LOC_PENDING,
    LOC_STOCK,
    MAX_MULTIPLIER,
    MAX_PLAYERS,
    NUM_CARDS,
    NUM_NUMBER_RANKS,
    NUM_SUITS,
    PLAY_OFFSET,
    RANKS_PER_SUIT,
    START_CHIPS,
    STOP,
    SUIT_BASE,
    SUIT_MIN,
    SUIT_STEP,
    TAKE_OFFSET,
    TRIPLE_BASE,
    TRIPLE_MIN,
    TRIPLE_STEP,
    Phase,
    RoundEnd,
    Status,
)

_PLAY = int(Phase.PLAY)
_CHOOSE_PLAYED = int(Phase.CHOOSE_PLAYED)
_CHOOSE_FLIPPED = int(Phase.CHOOSE_FLIPPED)
_DECIDE = int(Phase.DECIDE)
_PLAYING = int(Status.PLAYING)
_ROUNDS_DONE = int(Status.ROUNDS_DONE)
_BANKRUPT = int(Status.BANKRUPT)
_END_STOP = int(RoundEnd.STOP)
_END_HAND = int(RoundEnd.HAND_EMPTY)
_END_DECK = int(RoundEnd.DECK_EMPTY)

if TRIPLE_MIN != 3:  # suit_missing's bit test looks for 3 numbers in a window
    raise ImportError("suit_missing assumes runs of 3 (spec.TRIPLE_MIN)")


# Per-card tables (compile-time constants of the kernels).
def _longest_runs(bits: int) -> np.ndarray:
    """``bits.longest_run`` of every word below ``2**bits`` (int8; the same loop, on all
    words at once)."""
    x = np.arange(1 << bits, dtype=np.int64)
    n = np.zeros(1 << bits, np.int8)
    while x.any():
        n += x != 0
        x &= x >> 1
    return n


LONGEST_RUN_OF = _longest_runs(NUM_NUMBER_RANKS)  # longest run of a suit word's number bits
SUIT_OF = (np.arange(NUM_CARDS) // RANKS_PER_SUIT).astype(np.int64)  # suit of card c
RANK_OF = (np.arange(NUM_CARDS) % RANKS_PER_SUIT).astype(np.int8)  # rank of card c
BIT_OF = (np.int32(1) << RANK_OF.astype(np.int32)).astype(np.int32)  # its bit in a suit word


@kernel(inline="always")
def _longer(start, n, step, runs):
    """One step of :func:`longest_number_run`: ``start`` holds the bits where a run of at
    least ``n`` numbers starts; where a run of ``n + step`` starts too (``runs``: the
    starts of runs of ``step``), both grow."""
    t = start & (runs >> n)
    longer = t != 0
    return (t if longer else start), (n + step if longer else n)


@kernel(inline="always")
def longest_number_run(numbers):
    """``LONGEST_RUN_OF[numbers]`` for a word of 16 number bits, in shifts and selects
    (no branch, no table load): the starts of runs of 1, 2, 4, 8 and 16 numbers by
    doubling, then the longest run by binary lifting (runs of ``n + step`` start where
    runs of ``n`` start and runs of ``step`` start ``n`` higher)."""
    r1 = np.int64(numbers) & NUMBER_BITS
    r2 = r1 & (r1 >> 1)
    r4 = r2 & (r2 >> 2)
    r8 = r4 & (r4 >> 4)
    r16 = r8 & (r8 >> 8)
    start, n = _longer(np.int64(NUMBER_BITS), np.int64(0), 16, r16)
    start, n = _longer(start, n, 8, r8)
    start, n = _longer(start, n, 4, r4)
    start, n = _longer(start, n, 2, r2)
    start, n = _longer(start, n, 1, r1)
    return n


# --- yaku ---------------------------------------------------------------------------------
@kernel(inline="always")
def suit_yaku(count, non_numbers, longest_run):
    """Yaku score of one suit (rules "Yaku"): Great X (>= 3 non-number cards: 5, +3 per
    card beyond 3) + Triple X (longest run of numbers >= 3: 5, +3 per card beyond 3) +
    X (>= 6 cards of the suit: 1, +1 per card beyond 6)."""
    total = 0
    if non_numbers >= GREAT_MIN:
        total += GREAT_BASE + GREAT_STEP * (non_numbers - GREAT_MIN)
    if longest_run >= TRIPLE_MIN:
        total += TRIPLE_BASE + TRIPLE_STEP * (longest_run - TRIPLE_MIN)
    if count >= SUIT_MIN:
        total += SUIT_BASE + SUIT_STEP * (count - SUIT_MIN)
    return total


@kernel
def suit_bits_yaku(bits):
    """Yaku score of one suit's captured cards given as a suit word (bit r = rank r)."""
    b = np.int64(bits)
    # only runs of >= TRIPLE_MIN count: bit r of ``x`` is set iff ranks r..r+TRIPLE_MIN-1
    # are all held, so x's longest run is the suit's minus TRIPLE_MIN-1 (and x is mostly
    # 0: a cheap, predictable branch instead of a loop over every run)
    x = b & NUMBER_BITS
    for _ in range(TRIPLE_MIN - 1):
        x &= x >> 1
    run = longest_run(x) + (TRIPLE_MIN - 1) if x != 0 else 0
    return suit_yaku(popcount(b), popcount(b >> NUM_NUMBER_RANKS), run)


@kernel(inline="always")
def _most_in_window(numbers):
    """The most number cards held among any ``TRIPLE_MIN`` = 3 consecutive numbers of a
    suit word's number bits (0..3; bit tests, no loop, no branch: three in a window
    implies two, two imply one, so the count is the number of the three tests that
    hold)."""
    b = np.int64(numbers)
    near = b & ((b >> 1) | (b >> 2))  # bit r: r and r+1 or r+2 held (two in one window)
    three = near & (b >> 1) & (b >> 2)
    return np.int64(b != 0) + np.int64(near != 0) + np.int64(three != 0)


@kernel
def suit_missing(count, non_numbers, numbers):
    """Cards one suit's captured cards lack for each of its yaku (rules "Yaku"):
    ``(great, triple, suit)`` = non-number cards short of Great X's 3, number cards short
    of a run of 3 (3 minus the most numbers held among any 3 consecutive ones), cards
    short of X's 6; 0 once the yaku holds. ``numbers`` is the suit word's number bits
    (bit r = rank r). Branch-light bit tests (a run is ``TRIPLE_MIN`` = 3 numbers).
    """
    most = _most_in_window(numbers)
    return imax(GREAT_MIN - np.int64(non_numbers), 0), TRIPLE_MIN - most, imax(SUIT_MIN - np.int64(count), 0)


@kernel(inline="always")
def rise_base(word):
    """The part of :func:`card_rise` that does not depend on the card's rank, for the suit
    word ``word``: ``(count_yaku, suit, great_yaku, great, numbers, run, most,
    triple_yaku)``, where ``count_yaku`` / ``great_yaku`` are the yaku rises of one more
    card / one more non-number card (X / Great X), ``suit`` / ``great`` the falls of the
    cards short of X / Great X, ``numbers`` the word's number bits, ``run`` their longest
    run, ``most`` the most of them in 3 consecutive numbers and ``triple_yaku`` Triple
    X's score now. A seat's captured suits change only when it captures, so a caller
    that asks for several ranks of one word computes this once (the observation's
    action pieces, 4 seats and 4 suits against up to 8 ranks)."""
    w0 = np.int64(word)
    k0 = popcount(w0)
    n0 = popcount(w0 >> NUM_NUMBER_RANKS)
    b0 = w0 & NUMBER_BITS
    run0 = longest_number_run(b0)
    return (
        suit_yaku(k0 + 1, 0, 0) - suit_yaku(k0, 0, 0),
        imax(SUIT_MIN - k0, 0) - imax(SUIT_MIN - 1 - k0, 0),
        suit_yaku(0, n0 + 1, 0) - suit_yaku(0, n0, 0),
        imax(GREAT_MIN - n0, 0) - imax(GREAT_MIN - 1 - n0, 0),
        b0,
        run0,
        _most_in_window(b0),
        suit_yaku(0, 0, run0),
    )


@kernel(inline="always")
def non_number_rise(count_yaku, suit, great_yaku, great):
    """:func:`card_rise` of a non-number card from its suit word's :func:`rise_base`
    values of the same names: it adds to the count (X) and to Great X, whatever its
    rank."""
    zero = np.int64(0)
    return count_yaku + great_yaku, great, zero, suit, zero, zero


@kernel(inline="always")
def number_rise(count_yaku, suit, numbers, run, most, triple_yaku, rank):
    """:func:`card_rise` of the number card of rank ``rank`` (< ``NUM_NUMBER_RANKS``) from
    its suit word's :func:`rise_base` values of the same names. It adds to the count (X)
    and joins the runs beside it: the run through it is the ones just below it, itself
    and the ones just above it (two bit scans), and the most numbers in a window of three
    is read from the five bits around it."""
    r = np.int64(rank)
    b0 = np.int64(numbers)
    below = ctlz(~((b0 << 1) << (63 - r)))  # ones from rank r-1 down
    above = lowest_bit(~(b0 >> (r + 1)))  # ones from rank r+1 up
    run1 = imax(run, below + 1 + above)
    w = (b0 << 2) >> r  # ranks r-2..r+2 at bits 0..4 (r itself not held)
    a, b, d, f = w & 1, (w >> 1) & 1, (w >> 3) & 1, (w >> 4) & 1
    most1 = imax(most, 1 + imax(imax(a + b, b + d), d + f))
    return count_yaku + suit_yaku(0, 0, run1) - triple_yaku, np.int64(0), most1 - most, suit, run1 - run, run1


@kernel(inline="always")
def rank_rise(count_yaku, suit, great_yaku, great, numbers, run, most, triple_yaku, rank):
    """:func:`card_rise` of the card of rank ``rank`` from its suit word's
    :func:`rise_base` (the eight values first): :func:`number_rise` or
    :func:`non_number_rise`."""
    if rank >= NUM_NUMBER_RANKS:
        return non_number_rise(count_yaku, suit, great_yaku, great)
    return number_rise(count_yaku, suit, numbers, run, most, triple_yaku, rank)


@kernel(inline="always")
def card_rise(word, rank):
    """What capturing the card of rank ``rank`` gives a seat whose captured cards of its
    suit are the suit word ``word`` (the card not among them). Returns ``(yaku, great,
    triple, suit, run, longest)``:

    - ``yaku``: the rise of the seat's yaku score;
    - ``great``, ``triple``, ``suit``: the fall of the cards it lacks for each yaku kind
      (:func:`suit_missing`);
    - ``run``: the rise of the suit's longest run of numbers (Triple X counts only the
      longest run of a suit); ``longest``: that run after the capture (0 for a
      non-number card).

    Suits score apart (rules "Yaku"), so capturing cards of distinct suits (a capture:
    cards of one rank) gives the sum of their values, ``longest`` their largest.
    The three yaku kinds add up too: each depends on one figure of the suit. Computed as
    :func:`rank_rise` of :func:`rise_base` (tested against the differences of
    ``suit_bits_yaku``, ``suit_missing`` and the longest run before and after).
    """
    a0, a1, a2, a3, a4, a5, a6, a7 = rise_base(word)
    return rank_rise(a0, a1, a2, a3, a4, a5, a6, a7, rank)


@kernel
def yaku_score_r(e, seat):
    """Total yaku score of ``seat``'s captured cards in the record ``e`` (sum over the 4 suits),
    read from ``capt_bits``.

    Decision (rules "Yaku"): for Triple X only the longest run of the suit counts.
    """
    total = 0
    for suit in range(NUM_SUITS):
        total += suit_bits_yaku(e.capt_bits[seat, suit])
    return total


@kernel
def koikoi_multiplier(count):
    """Multiplier of a scorer who declared ``count`` koi-koi: 0-1 -> 1, 2, 3, 4+ -> 4."""
    if count <= 1:
        return 1
    if count >= MAX_MULTIPLIER:
        return MAX_MULTIPLIER
    return np.int64(count)


# --- queries ------------------------------------------------------------------------------
@kernel
def match_count_r(e, card):
    """Number of field cards with ``card``'s rank in the record ``e`` (0..3: each rank has
    four cards)."""
    r = card % RANKS_PER_SUIT
    n = 0
    for suit in range(NUM_SUITS):
        c = suit * RANKS_PER_SUIT + r
        n += (c != card) & (e.loc[c] == LOC_FIELD)
    return n


@kernel(inline="always")
def unseen_by(loc, seat):
    """Whether a card at ``loc`` (a ``LOC_*`` code) is hidden from ``seat``: in the stock
    or in another seat's hand."""
    return (loc == LOC_STOCK) | ((loc >= LOC_HAND) & (loc < LOC_CAPTURED) & (loc != LOC_HAND + seat))


@kernel
def unseen_of_rank_r(e, seat, card):
    """Cards of ``card``'s rank (itself included) that ``seat`` cannot see in the record
    ``e`` (:func:`unseen_by`; 0..4)."""
    r = card % RANKS_PER_SUIT
    n = 0
    for suit in range(NUM_SUITS):
        n += unseen_by(e.loc[suit * RANKS_PER_SUIT + r], seat)
    return n


@kernel
def stock_size_r(e):
    """Cards left in the stock of the record ``e``."""
    return NUM_CARDS - np.int64(e.deck_pos)


@kernel
def legal_mask_r(e, out, row):
    """Write the action mask of the record ``e`` into row ``row`` of ``out`` ((B, 178)
    int8; indexing rows here rather than passing ``out[row]`` keeps numba from reference
    counting a view); return the legal count.

    PLAY: the acting seat's hand cards; CHOOSE_*: the field cards of the pending card's
    rank (always two); DECIDE: KOIKOI and STOP. All zeros once the game is over. While the
    game runs at least one action is legal (a turn starts only when every hand holds a
    card). Every entry is written once, without branches (vectorized loops over ``loc``).
    """
    loc = e.loc
    playing = e.status == _PLAYING
    ph = e.phase
    seat = e.current
    # codes no card has (loc >= 0, ranks >= 0) switch a part of the mask off
    play = playing and ph == _PLAY
    hand_code = np.int8(LOC_HAND + seat) if play else np.int8(-1)
    choosing = playing and _CHOOSE_PLAYED <= ph <= _CHOOSE_FLIPPED
    rank = np.int8(RANK_OF[e.pending]) if choosing else np.int8(-1)
    decide = np.int8(playing and ph == _DECIDE)
    field = np.int8(LOC_FIELD)
    for c in range(NUM_CARDS):
        out[row, PLAY_OFFSET + c] = loc[c] == hand_code
    for c in range(NUM_CARDS):
        out[row, TAKE_OFFSET + c] = (loc[c] == field) & (RANK_OF[c] == rank)
    out[row, KOIKOI] = decide
    out[row, STOP] = decide
    n = 2 * np.int64(decide)
    if play:
        for suit in range(NUM_SUITS):
            n += popcount(np.int64(e.hand_bits[seat, suit]))
    elif choosing:
        for suit in range(NUM_SUITS):
            n += loc[suit * RANKS_PER_SUIT + rank] == field
    return n


@kernel
def is_legal_r(e, action):
    """Whether ``action`` (any int) is legal for the acting seat of the record ``e``."""
    if e.status != _PLAYING:
        return False
    if e.phase == _PLAY:
        if PLAY_OFFSET <= action < PLAY_OFFSET + NUM_CARDS:
            return e.loc[action - PLAY_OFFSET] == LOC_HAND + e.current
        return False
    if e.phase == _DECIDE:
        return KOIKOI <= action <= STOP
    if TAKE_OFFSET <= action < TAKE_OFFSET + NUM_CARDS:
        c = action - TAKE_OFFSET
        return e.loc[c] == LOC_FIELD and c % RANKS_PER_SUIT == e.pending % RANKS_PER_SUIT
    return False


# --- dealing ------------------------------------------------------------------------------
@kernel
def shuffle_deck_r(e):
    """Set ``e.deck`` to ``0..87`` shuffled exactly as
    ``tabletop_core.kernel.rng.shuffle_prefix(s.rng, i, deck, 88)`` would (87 draws from the
    env's generator, Fisher-Yates from the end, Lemire reduction of the high 32 bits),
    with the generator word ``e.rng`` kept in a register instead of an array."""
    deck = e.deck
    for k in range(NUM_CARDS):
        deck[k] = k
    e.rng = shuffle_word(e.rng, deck, NUM_CARDS)


@kernel
def deal_round_r(e):
    """Start a round in the record ``e``: shuffle the 88 cards with the env's generator (87
    draws), deal 8 to each seat, 8 to the field; the dealer acts first.

    Resets the round's yaku scores, koi-koi counts, phase and turn; keeps chips, dealer
    and round counter.
    """
    shuffle_deck_r(e)
    _deal_shuffled_r(e)


@kernel
def _clear_bits_r(e):
    for seat in range(MAX_PLAYERS):
        for suit in range(NUM_SUITS):
            e.hand_bits[seat, suit] = 0
            e.capt_bits[seat, suit] = 0


@kernel
def _deal_shuffled_r(e):
    """The deal of :func:`deal_round_r` once ``deck`` is shuffled."""
    for c in range(NUM_CARDS):
        e.loc[c] = LOC_STOCK
    _clear_bits_r(e)
    pos = 0
    n = e.cfg_players
    for seat in range(n):
        for _ in range(HAND_SIZE):
            c = e.deck[pos]
            e.loc[c] = LOC_HAND + seat
            e.hand_bits[seat, SUIT_OF[c]] |= BIT_OF[c]
            pos += 1
        e.hand_size[seat] = HAND_SIZE
    for seat in range(n, e.hand_size.shape[0]):
        e.hand_size[seat] = 0
    for _ in range(FIELD_DEAL):
        e.loc[e.deck[pos]] = LOC_FIELD
        pos += 1
    e.deck_pos = pos
    e.pending = -1
    e.phase = _PLAY
    for seat in range(MAX_PLAYERS):
        e.yaku[seat] = 0
        e.koikoi[seat] = 0
    e.current = e.dealer
    e.turn = 0


@kernel
def deal_r(e):
    """Start a new game in the record ``e``: every seat at 25 chips, first dealer
    ``cfg_first_dealer``, round 0, then :func:`deal_round_r`."""
    n = e.cfg_players
    for seat in range(MAX_PLAYERS):
        e.chips[seat] = START_CHIPS if seat < n else 0
        e.delta[seat] = 0
    e.dealer = e.cfg_first_dealer
    e.round = 0
    e.last_end = 0
    e.last_winner = -1
    e.last_points = 0
    e.status = _PLAYING
    deal_round_r(e)


@kernel
def sync_bits_r(e):
    """Rebuild the record ``e``'s ``hand_bits`` and ``capt_bits`` from ``loc`` (for states
    whose ``loc`` was written by hand; the rules kernels keep them in step themselves)."""
    _clear_bits_r(e)
    for c in range(NUM_CARDS):
        loc = e.loc[c]
        if LOC_HAND <= loc < LOC_HAND + MAX_PLAYERS:
            e.hand_bits[loc - LOC_HAND, SUIT_OF[c]] |= BIT_OF[c]
        elif LOC_CAPTURED <= loc < LOC_CAPTURED + MAX_PLAYERS:
            e.capt_bits[loc - LOC_CAPTURED, SUIT_OF[c]] |= BIT_OF[c]


# --- the turn (record kernels) ------------------------------------------------------------
@kernel
def _capture_r(e, card, seat):
    """Move ``card`` to ``seat``'s captured cards."""
    e.loc[card] = LOC_CAPTURED + seat
    e.capt_bits[seat, SUIT_OF[card]] |= BIT_OF[card]


@kernel
def _capture_rank_r(e, card, seat):
    """Capture ``card`` and every field card of its rank for ``seat``."""
    code = np.int8(LOC_CAPTURED + seat)
    r = card % RANKS_PER_SUIT
    bit = np.int32(1) << r
    for suit in range(NUM_SUITS):  # branch-free: every suit's card and word are rewritten
        c = suit * RANKS_PER_SUIT + r
        take = (e.loc[c] == LOC_FIELD) | (c == card)
        e.loc[c] = code if take else e.loc[c]
        e.capt_bits[seat, suit] |= bit if take else np.int32(0)


@kernel
def _end_round_r(e, how, winner, points):
    """Record how the round ended, advance the round counter, end the game or deal."""
    e.last_end = how
    e.last_winner = winner
    e.last_points = points
    e.round += 1
    e.phase = _PLAY
    e.pending = -1
    bankrupt = False
    for seat in range(e.cfg_players):
        if e.chips[seat] <= 0:
            bankrupt = True
    if bankrupt:
        e.status = _BANKRUPT
    elif e.round >= e.cfg_rounds:
        e.status = _ROUNDS_DONE
    else:
        deal_round_r(e)


@kernel
def _end_turn_r(e):
    """End of a turn: the round ends with no score if a hand or the stock is empty
    (the dealer stays); otherwise the next seat clockwise plays."""
    e.phase = _PLAY
    e.pending = -1
    n = e.cfg_players
    for seat in range(n):
        if e.hand_size[seat] == 0:
            _end_round_r(e, _END_HAND, -1, 0)
            return
    if e.deck_pos >= NUM_CARDS:
        _end_round_r(e, _END_DECK, -1, 0)
        return
    nxt = e.current + 1
    e.current = nxt if nxt < n else 0
    e.turn += 1


@kernel
def _after_capture_r(e):
    """Step 5: DECIDE if the acting seat's yaku score rose, else end the turn."""
    seat = e.current
    y = yaku_score_r(e, seat)
    if y > e.yaku[seat]:
        e.yaku[seat] = y
        e.phase = _DECIDE
        e.pending = -1
    else:
        _end_turn_r(e)


@kernel
def _draw_r(e, seat):
    """Step 4: draw ``min(2, 8 - hand, stock)`` cards from the stock's top."""
    k = 0
    while k < DRAW_MAX and e.hand_size[seat] < HAND_SIZE and e.deck_pos < NUM_CARDS:
        c = e.deck[e.deck_pos]
        e.loc[c] = LOC_HAND + seat
        e.hand_bits[seat, SUIT_OF[c]] |= BIT_OF[c]
        e.deck_pos += 1
        e.hand_size[seat] += 1
        k += 1


@kernel(inline="always")
def _meet_field_r(e, card, seat, choose_phase):
    """The played or flipped ``card`` meets the field: with no card of its rank it stays
    there (returns True, the turn goes on); with two ``seat`` chooses one (phase
    ``choose_phase``); with one or three it captures them all. Returns False then."""
    m = match_count_r(e, card)
    if m == 0:
        e.loc[card] = LOC_FIELD
        return True
    if m == 2:
        e.loc[card] = LOC_PENDING
        e.pending = card
        e.phase = choose_phase
    else:
        _capture_rank_r(e, card, seat)
        _after_capture_r(e)
    return False


@kernel
def _flip_r(e):
    """Step 3: flip the stock's top and match it; no match -> step 4 and end the turn."""
    if e.deck_pos >= NUM_CARDS:
        _end_turn_r(e)  # nothing to flip: the turn ends (and with it the round)
        return
    card = e.deck[e.deck_pos]
    e.deck_pos += 1
    if _meet_field_r(e, card, e.current, _CHOOSE_FLIPPED):
        _draw_r(e, e.current)
        _end_turn_r(e)


@kernel
def _score_stop_r(e):
    """The acting seat stops: collect yaku x multiplier from every other seat, each
    payment capped at the payer's chips; the stopper deals the next round."""
    seat = e.current
    points = np.int64(e.yaku[seat]) * koikoi_multiplier(e.koikoi[seat])
    gained = 0
    for p in range(e.cfg_players):
        if p == seat:
            continue
        pay = points if points < e.chips[p] else np.int64(e.chips[p])
        e.chips[p] -= pay
        e.delta[p] = -pay
        gained += pay
    e.chips[seat] += gained
    e.delta[seat] = gained
    e.dealer = seat
    _end_round_r(e, _END_STOP, seat, points)


@kernel
def apply_action_r(e, action):
    """Apply a LEGAL ``action`` for the acting seat of the record ``e``.

    Callers validate with :func:`is_legal_r` or the mask first: an illegal action here is
    undefined behaviour. Writes the step's chip changes (the rewards) to ``delta``;
    updates ``status`` when the game ends and deals the next round when one ends.
    """
    for seat in range(MAX_PLAYERS):
        e.delta[seat] = 0
    seat = e.current
    ph = e.phase
    if ph == _PLAY:
        card = action - PLAY_OFFSET
        e.hand_size[seat] -= 1
        e.hand_bits[seat, SUIT_OF[card]] &= ~BIT_OF[card]
        if _meet_field_r(e, card, seat, _CHOOSE_PLAYED):
            _flip_r(e)
    elif ph == _DECIDE:
        if action == KOIKOI:
            if e.koikoi[seat] < 127:
                e.koikoi[seat] += 1
            _end_turn_r(e)
        else:
            _score_stop_r(e)
    else:
        _capture_r(e, action - TAKE_OFFSET, seat)
        _capture_r(e, e.pending, seat)
        e.pending = -1
        _after_capture_r(e)
