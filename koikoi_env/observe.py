"""Koikoi's observation: named pieces in one flat float32 vector in [0, 1], from any
seat's view.

Per-seat pieces are in seat order STARTING AT THE OBSERVER: index ``k`` is seat
``(observer + k) % P`` (index 0 = self, 1 = the next seat clockwise). ``P`` = players.

Pieces (in buffer order), each with the largest value it takes in game units (``high``;
the vector holds ``value / high``, see :mod:`tabletop_core.contract.encoders`)::

    piece            shape    high  meaning (game units, as decode_observation returns them)
    hand             (88,)    flag  1 if the observer holds card c
    field            (88,)    flag  1 if card c lies face up on the field
    pending_card     (88,)    1-hot 1 at the played/flipped card awaiting a choice (CHOOSE_*)
    pending_matches  (88,)    flag  1 at the field cards it may take (the choice; CHOOSE_*)
    unseen_of_rank   (88,)    4     cards of card c's rank (c included) the observer cannot
                                    see: in the stock or another hand
    action_takes     (88,)    4     the acting seat's action on card c (play c; take c in
                                    CHOOSE_*): cards it captures, c and the played/flipped
                                    card included (0: none, c stays on the field)
    own_yaku_rise    (88,)    10    the rise of the actor's yaku score from the cards at
                                    stake (capped at 10)
    own_yaku_closer  (88, 3)  4     the fall of the cards the actor lacks for Great X,
                                    Triple X and X (rules.suit_missing), summed over suits
    rival_yaku_rise  (88,)    10    own_yaku_rise for the other seats: the largest
    rival_yaku_closer (88, 3) 4     own_yaku_closer for the other seats: the largest
    own_run          (88, 2)  4, 16 the rise of the actor's longest run of numbers (summed
                                    over suits, capped at 4) and its length after the
                                    capture (Triple X counts the longest run only)
    rival_run        (88, 2)  4, 16 own_run for the other seats: the largest
    phase            (4,)     1-hot spec.Phase (all 0 once the game is over)
    deck_size        ()       88    cards left in the stock
    round            ()       32    rounds finished before this one (0-based round index)
    rounds_left      ()       32    rounds still to play including this one (0 once over)
    captured         (P, 88)  flag  1 if seat k captured card c
    current          (P,)     1-hot the seat to act (all 0 once the game is over)
    dealer           (P,)     1-hot this round's dealer
    chips            (P,)     100   chips held (25 a seat at the start, never below 0)
    hand_sizes       (P,)     8     cards in each hand
    koikoi_counts    (P,)     40    koi-koi declared this round (at most one a turn)
    yaku_scores      (P,)     MAX_YAKU  current yaku score of each seat's captured cards
                                    (:data:`MAX_YAKU`: every card of every suit)

The ``action_*``, ``own_*`` and ``rival_*`` pieces are written for the acting seat's
actions only (0 elsewhere, and from any other seat's view), from the rules' own helper
(``rules.card_rise``). The cards at stake of an action on card c are the cards it
captures, or c itself when it captures nothing (what the actor gives up and leaves on
the field for the next seats). A play with two matching field cards leaves the choice
for later: each of its values is the best of the two captures. They give the network
what an action does to the yaku, which it had to rebuild from 88-card flags (rank
matches, suit runs); ``docs/rules/koikoi.md`` ("Observation") records the decision.

The declaration is :func:`observation_layout`; the kernel multiplies by the reciprocals
(``S_*`` constants) read from it.

Never another seat's hand nor the stock's order (tested).
"""

from __future__ import annotations

from functools import cache

import numpy as np

from tabletop_core.contract.encoders import ObservationLayout
from tabletop_core.kernel.bits import imax, imin, stack_i64
from tabletop_core.kernel.jit import kernel

from .bits import lowest_bit, popcount
from .rules import RANK_OF, non_number_rise, number_rise, rise_base, suit_bits_yaku, suit_yaku, unseen_by
from .spec import (
    HAND_SIZE,
    MAX_PLAYERS,
    MAX_ROUNDS,
    MAX_TURNS_PER_ROUND,
    MIN_PLAYERS,
    NUM_CARDS,
    NUM_NUMBER_RANKS,
    NUM_PHASES,
    NUM_SUITS,
    RANKS_PER_SUIT,
    START_CHIPS,
    Phase,
)
from .state import LOC_CAPTURED, LOC_FIELD, LOC_HAND

_PLAY = int(Phase.PLAY)
_DECIDE = int(Phase.DECIDE)

MAX_CHIPS = START_CHIPS * MAX_PLAYERS  # every chip of the table
MAX_KOIKOI = MAX_TURNS_PER_ROUND // MIN_PLAYERS  # one declaration a turn at most
MAX_RISE = 10  # own/rival_yaku_rise are capped here: a new yaku is 5, two suits' are 10
MAX_RUN_RISE = 4  # own/rival_run's rise is capped here (joining two runs can add more)
_RUN_HIGH = np.tile([MAX_RUN_RISE, NUM_NUMBER_RANKS], NUM_CARDS)  # (rise, length) per card
MAX_YAKU = NUM_SUITS * int(suit_bits_yaku((1 << RANKS_PER_SUIT) - 1))  # every card captured


def observation_layout(options) -> ObservationLayout:
    """The layout for ``options`` (an ``Options``, or the number of seats)."""
    return _layout(getattr(options, "num_players", options))


@cache
def _layout(num_players: int) -> ObservationLayout:
    """The :class:`ObservationLayout` for ``num_players`` seats (see the module docstring)."""
    p = int(num_players)
    return ObservationLayout(
        [
            ("hand", (NUM_CARDS,), 1, "flag"),
            ("field", (NUM_CARDS,), 1, "flag"),
            ("pending_card", (NUM_CARDS,), 1, "one_hot"),
            ("pending_matches", (NUM_CARDS,), 1, "flag"),
            ("unseen_of_rank", (NUM_CARDS,), NUM_SUITS, "count"),
            ("action_takes", (NUM_CARDS,), NUM_SUITS, "count"),
            ("own_yaku_rise", (NUM_CARDS,), MAX_RISE, "count"),
            ("own_yaku_closer", (NUM_CARDS, 3), NUM_SUITS, "count"),
            ("rival_yaku_rise", (NUM_CARDS,), MAX_RISE, "count"),
            ("rival_yaku_closer", (NUM_CARDS, 3), NUM_SUITS, "count"),
            ("own_run", (NUM_CARDS, 2), _RUN_HIGH, "count"),
            ("rival_run", (NUM_CARDS, 2), _RUN_HIGH, "count"),
            ("phase", (NUM_PHASES,), 1, "one_hot"),
            ("deck_size", (), NUM_CARDS, "count"),
            ("round", (), MAX_ROUNDS, "count"),
            ("rounds_left", (), MAX_ROUNDS, "count"),
            ("captured", (p, NUM_CARDS), 1, "flag"),
            ("current", (p,), 1, "one_hot"),
            ("dealer", (p,), 1, "one_hot"),
            ("chips", (p,), MAX_CHIPS, "count"),
            ("hand_sizes", (p,), HAND_SIZE, "count"),
            ("koikoi_counts", (p,), MAX_KOIKOI, "count"),
            ("yaku_scores", (p,), MAX_YAKU, "count"),
        ]
    )


# Offsets of the fixed pieces (the same for every player count) and of the first
# per-seat piece; per-seat pieces follow each other at known multiples of P.
_L = observation_layout(MIN_PLAYERS)
O_HAND = _L.offset["hand"]
O_FIELD = _L.offset["field"]
O_PEND = _L.offset["pending_card"]
O_MATCH = _L.offset["pending_matches"]
O_UNSEEN = _L.offset["unseen_of_rank"]
O_TAKES = _L.offset["action_takes"]
O_OWN_RISE = _L.offset["own_yaku_rise"]
O_OWN_CLOSER = _L.offset["own_yaku_closer"]
O_RIVAL_RISE = _L.offset["rival_yaku_rise"]
O_RIVAL_CLOSER = _L.offset["rival_yaku_closer"]
O_OWN_RUN = _L.offset["own_run"]
O_RIVAL_RUN = _L.offset["rival_run"]
O_PHASE = _L.offset["phase"]
O_DECK = _L.offset["deck_size"]
O_ROUND = _L.offset["round"]
O_LEFT = _L.offset["rounds_left"]
O_CAPT = _L.offset["captured"]
S_UNSEEN = _L.scale["unseen_of_rank"]
S_RISE = _L.scale["own_yaku_rise"]
_S_COUNT = np.float32(1.0 / NUM_SUITS)  # action_takes and the closer pieces (high 4)
S_RUN_RISE = np.float32(1.0 / MAX_RUN_RISE)
S_RUN = np.float32(1.0 / NUM_NUMBER_RANKS)
S_DECK = _L.scale["deck_size"]  # reciprocal scales: float32 constants in the kernel
S_ROUND = _L.scale["round"]
S_CHIPS = _L.scale["chips"]
S_HAND_N = _L.scale["hand_sizes"]
S_KOI = _L.scale["koikoi_counts"]
S_YAKU = _L.scale["yaku_scores"]
_ONE = np.float32(1.0)  # ``_ONE if x else _ZERO`` compiles to masked vector moves
_ZERO = np.float32(0.0)


def observation_dim(num_players: int) -> int:
    """Length of the observation vector for ``num_players`` seats."""
    return observation_layout(num_players).dim


@kernel
def observe_r(e, seat, out, row):
    """Write the observation of the record ``e`` from ``seat``'s view into row ``row`` of
    ``out`` ((B, dim) float32; ``rules`` explains the ``_r`` kernels and
    ``rules.legal_mask_r`` the row index).

    Reads only what ``seat`` may know: its own hand and the public table. Every float is
    written (no prior zeroing of ``out``), the card planes by branch-free loops over
    ``loc`` that LLVM vectorizes; the action pieces are zeroed, then written for the
    acting seat's actions.
    """
    n = np.int64(e.cfg_players)
    seat = np.int64(seat)
    playing = e.status == 0
    _card_planes_r(e, seat, out, row, playing)
    _write_actions_r(e, seat, out, row)
    phase = np.int64(e.phase) if playing else -1
    for k in range(NUM_PHASES):
        out[row, O_PHASE + k] = _ONE if k == phase else _ZERO
    out[row, O_DECK] = np.float32(NUM_CARDS - np.int64(e.deck_pos)) * S_DECK
    out[row, O_ROUND] = np.float32(e.round) * S_ROUND
    left = np.int64(e.cfg_rounds) - e.round
    out[row, O_LEFT] = np.float32(left) * S_ROUND if playing and left > 0 else _ZERO
    _seat_pieces_r(e, seat, out, row, playing, n)


@kernel(inline="always")
def _card_planes_r(e, seat, out, row, playing):
    """The card planes of ``seat``'s view: its hand, the field, the pending card and the
    field cards matching it, and the unseen cards (flags summed per rank)."""
    loc = e.loc
    hand_code = np.int8(LOC_HAND + seat)
    field = np.int8(LOC_FIELD)
    for c in range(NUM_CARDS):
        out[row, O_HAND + c] = _ONE if loc[c] == hand_code else _ZERO
    for c in range(NUM_CARDS):
        out[row, O_FIELD + c] = _ONE if loc[c] == field else _ZERO
    # the pending card and its choices (codes no card has switch them off)
    pending = np.int64(e.pending) if playing else -1
    rank = np.int8(RANK_OF[pending]) if pending >= 0 else np.int8(-1)
    for c in range(NUM_CARDS):
        out[row, O_PEND + c] = _ONE if c == pending else _ZERO
    for c in range(NUM_CARDS):
        out[row, O_MATCH + c] = _ONE if (loc[c] == field) & (RANK_OF[c] == rank) else _ZERO
    for c in range(NUM_CARDS):  # flags first, then each rank's four summed (vectorized)
        out[row, O_UNSEEN + c] = _ONE if unseen_by(loc[c], seat) else _ZERO
    for r in range(RANKS_PER_SUIT):
        u = (
            out[row, O_UNSEEN + r]
            + out[row, O_UNSEEN + RANKS_PER_SUIT + r]
            + out[row, O_UNSEEN + 2 * RANKS_PER_SUIT + r]
            + out[row, O_UNSEEN + 3 * RANKS_PER_SUIT + r]
        ) * S_UNSEEN
        for suit in range(NUM_SUITS):
            out[row, O_UNSEEN + suit * RANKS_PER_SUIT + r] = u


@kernel(inline="always")
def _seat_pieces_r(e, seat, out, row, playing, n):
    """The per-seat pieces, ``seat`` first and the others in turn order: captured cards,
    current, dealer, chips, hand size, koi-koi calls and yaku scores."""
    loc = e.loc
    o_cur = O_CAPT + n * NUM_CARDS
    o_dealer = o_cur + n
    o_chips = o_dealer + n
    o_hs = o_chips + n
    o_koi = o_hs + n
    o_yaku = o_koi + n
    current = np.int64(e.current) if playing else -1
    dealer = np.int64(e.dealer)
    p = seat  # seat of index k: (seat + k) % n
    for k in range(n):
        code = np.int8(LOC_CAPTURED + p)
        base = O_CAPT + k * NUM_CARDS
        for c in range(NUM_CARDS):
            out[row, base + c] = _ONE if loc[c] == code else _ZERO
        out[row, o_cur + k] = _ONE if p == current else _ZERO
        out[row, o_dealer + k] = _ONE if p == dealer else _ZERO
        out[row, o_chips + k] = np.float32(e.chips[p]) * S_CHIPS
        out[row, o_hs + k] = np.float32(e.hand_size[p]) * S_HAND_N
        out[row, o_koi + k] = np.float32(e.koikoi[p]) * S_KOI
        out[row, o_yaku + k] = np.float32(e.yaku[p]) * S_YAKU
        p += 1
        if p == n:
            p = 0


_PS = MAX_PLAYERS * NUM_SUITS  # seat-and-suit pairs, index p * NUM_SUITS + suit
_BASE = 6  # rules.number_rise's values of rules.rise_base, per pair
# the action pieces' scratch, one stack array: the bases (value f of pair ps at f * _PS +
# ps), then per pair a non-number card's packed rise, the current card's packed rise and
# its longest run
_NON_NUMBER = _BASE * _PS
_PACKED = _NON_NUMBER + _PS
_LONGEST = _PACKED + _PS
_WORK = _LONGEST + _PS


@kernel(inline="always")
def _bases_r(e, work, pairs):
    """What the suit words of the first ``pairs`` seat-and-suit pairs (the seats the game
    has) give (``rules.rise_base``) into the scratch ``work``: the values a number card
    needs (value ``f`` of pair ``ps`` at ``f * _PS + ps``), and a non-number card's whole
    :func:`_pack`-ed rise (at ``_NON_NUMBER + ps``: it does not depend on the rank)."""
    for ps in range(pairs):
        cy, suit, gy, great, numbers, run, most, ty = rise_base(e.capt_bits[ps // NUM_SUITS, ps % NUM_SUITS])
        work[ps] = cy
        work[_PS + ps] = suit
        work[2 * _PS + ps] = numbers
        work[3 * _PS + ps] = run
        work[4 * _PS + ps] = most
        work[5 * _PS + ps] = ty
        a0, a1, a2, a3, a4, _ = non_number_rise(cy, suit, gy, great)
        work[_NON_NUMBER + ps] = _pack(a0, a1, a2, a3, a4)


# rules.card_rise's first five values (all >= 0 and below 2**9, summed over 4 suits) in
# 10-bit fields of one word, so that a capture's suits add with one addition per seat and
# two words' field-wise maximum takes a few bit operations (a guard bit per field)
_FIELD = 10
_GUARDS = sum(1 << (_FIELD * k + _FIELD - 1) for k in range(5))
_FIELD_MAX = (1 << (_FIELD - 1)) - 1


def _largest_yaku_rise() -> int:
    """A bound on the yaku rise one capture gives a seat (the largest packed value): four
    suits, each one card more (X) plus the largest Triple X or Great X score."""
    y = suit_yaku.py_func
    count = max(y(k + 1, 0, 0) - y(k, 0, 0) for k in range(RANKS_PER_SUIT))
    return NUM_SUITS * (count + max(y(0, 0, NUM_NUMBER_RANKS), y(0, RANKS_PER_SUIT - NUM_NUMBER_RANKS, 0)))


if _largest_yaku_rise() > _FIELD_MAX:  # the packed sums would carry into the next field
    raise ImportError(f"a capture's yaku rise can reach {_largest_yaku_rise()}: widen observe._FIELD")


@kernel(inline="always")
def _packed_max(a, b):
    """The field-wise maximum of two packed words: a field's guard bit survives ``(a |
    guards) - b`` exactly where a's field is at least b's."""
    m = ((((a | _GUARDS) - b) & _GUARDS) >> (_FIELD - 1)) * _FIELD_MAX
    return (a & m) | (b & ~m)


@kernel(inline="always")
def _field(v, k):
    """Field ``k`` of a packed word."""
    return (v >> (_FIELD * k)) & _FIELD_MAX


@kernel(inline="always")
def _pack(a0, a1, a2, a3, a4):
    """Five values (each in 0..2**9-1) in one word's fields."""
    return a0 | (a1 << _FIELD) | (a2 << (2 * _FIELD)) | (a3 << (3 * _FIELD)) | (a4 << (4 * _FIELD))


@kernel(inline="always")
def _rank_rises(work, rank, pairs):
    """``rules.card_rise`` of rank ``rank`` for the first ``pairs`` seat-and-suit pairs
    (:func:`_bases_r` holds what the suit words give): its first five values packed at
    ``_PACKED + ps`` of ``work``, its ``longest`` at ``_LONGEST + ps``. A number card runs
    ``rules.number_rise`` on every pair with the same instructions
    (:func:`_number_rises`); a non-number card's rises are the bases'."""
    if rank >= NUM_NUMBER_RANKS:
        for ps in range(pairs):
            work[_PACKED + ps] = work[_NON_NUMBER + ps]
            work[_LONGEST + ps] = 0
    else:
        _number_rises(work, rank, pairs)


@kernel
def _number_rises(work, rank, pairs):
    """``rules.number_rise`` of rank ``rank`` on the first ``pairs`` pairs (``work`` as in
    :func:`_rank_rises`): one loop with the same instructions for each pair, so that no
    pair's branch can be mispredicted."""
    for ps in range(pairs):
        a0, a1, a2, a3, a4, a5 = number_rise(
            work[ps],
            work[_PS + ps],
            work[2 * _PS + ps],
            work[3 * _PS + ps],
            work[4 * _PS + ps],
            work[5 * _PS + ps],
            rank,
        )
        work[_PACKED + ps] = _pack(a0, a1, a2, a3, a4)
        work[_LONGEST + ps] = a5


@kernel(inline="always")
def _stake_r(work, n, seat, out, row, card, takes, rank, stake, alt0, alt1):
    """Write the action pieces of card ``card``. What capturing cards of rank ``rank``
    gives each of the ``n`` seats (``work``: the scratch, holding ``rules.rise_base`` of
    every seat's suit words and what a non-number card gives, :func:`_bases_r`): the sum
    of ``rules.card_rise`` over the suits of the bit set ``stake`` (the ``longest``
    value: the largest), plus, when ``alt0`` >= 0, the better of suit ``alt0``'s and
    suit ``alt1``'s card value by value (a play with two matches: the best of either
    capture); ``seat``'s values and the largest over the other seats, value by value,
    scaled and capped.

    Every seat-and-suit pair's values are computed at once (:func:`_rank_rises`), then
    summed over the suits at stake with weights 0 or 1 (packed: one addition a suit),
    and ``seat``'s values are picked without a branch."""
    _rank_rises(work, rank, n * NUM_SUITS)
    packed = work[_PACKED:_LONGEST]
    longest = work[_LONGEST:_WORK]
    w0 = np.int64(stake) & 1
    w1 = (np.int64(stake) >> 1) & 1
    w2 = (np.int64(stake) >> 2) & 1
    w3 = (np.int64(stake) >> 3) & 1
    own = own_long = rival = rival_long = np.int64(0)
    for p in range(n):
        ps = p * NUM_SUITS
        v = w0 * packed[ps] + w1 * packed[ps + 1] + w2 * packed[ps + 2] + w3 * packed[ps + 3]
        long = imax(
            imax(w0 * longest[ps], w1 * longest[ps + 1]), imax(w2 * longest[ps + 2], w3 * longest[ps + 3])
        )
        if alt0 >= 0:
            v += _packed_max(packed[ps + alt0], packed[ps + alt1])
            long = imax(long, imax(longest[ps + alt0], longest[ps + alt1]))
        mine = p == seat
        own = v if mine else own
        own_long = long if mine else own_long
        rival = _packed_max(rival, 0 if mine else v)
        rival_long = imax(rival_long, 0 if mine else long)
    out[row, O_TAKES + card] = np.float32(takes) * _S_COUNT
    _put_values(out, row, card, O_OWN_RISE, O_OWN_CLOSER, O_OWN_RUN, own, own_long)
    _put_values(out, row, card, O_RIVAL_RISE, O_RIVAL_CLOSER, O_RIVAL_RUN, rival, rival_long)


@kernel(inline="always")
def _put_values(out, row, card, o_rise, o_closer, o_run, v, long):
    """One seat's values (:func:`_stake_r`: five packed, and ``longest``) into its rise,
    closer and run pieces."""
    out[row, o_rise + card] = np.float32(imin(_field(v, 0), MAX_RISE)) * S_RISE
    out[row, o_closer + 3 * card] = np.float32(_field(v, 1)) * _S_COUNT
    out[row, o_closer + 3 * card + 1] = np.float32(_field(v, 2)) * _S_COUNT
    out[row, o_closer + 3 * card + 2] = np.float32(_field(v, 3)) * _S_COUNT
    out[row, o_run + 2 * card] = np.float32(imin(_field(v, 4), MAX_RUN_RISE)) * S_RUN_RISE
    out[row, o_run + 2 * card + 1] = np.float32(long) * S_RUN


@kernel(inline="always")
def _choose_actions_r(e, seat, out, row, work, n):
    """The action pieces of a CHOOSE_* phase: take field card ``f`` with the pending card,
    for each field card of the pending card's rank."""
    field = np.int8(LOC_FIELD)
    pending = np.int64(e.pending)
    r = pending % RANKS_PER_SUIT
    own = np.int64(1) << (pending // RANKS_PER_SUIT)
    for suit in range(NUM_SUITS):
        f = suit * RANKS_PER_SUIT + r
        if e.loc[f] == field:
            _stake_r(work, n, seat, out, row, f, 2, r, own | (np.int64(1) << suit), -1, -1)


@kernel(inline="always")
def _play_actions_r(e, seat, out, row, work, n):
    """The action pieces of the PLAY phase: each hand card with the field cards it
    captures (two matches: the best of either capture, value by value)."""
    field = np.int8(LOC_FIELD)
    loc = e.loc
    for half in range(2):  # the hand's cards, from its suit words two at a time
        bits = np.int64(e.hand_bits[seat, 2 * half]) | (np.int64(e.hand_bits[seat, 2 * half + 1]) << 32)
        while bits != 0:
            b = lowest_bit(bits)
            bits &= bits - 1
            hs = 2 * half + (b >> 5)
            r = b & 31
            c = hs * RANKS_PER_SUIT + r
            matches = np.int64(0)
            for suit in range(NUM_SUITS):
                matches |= np.int64(loc[suit * RANKS_PER_SUIT + r] == field) << suit
            own = np.int64(1) << hs
            m = popcount(matches)
            if m == 2:  # two matches: the best of either capture, value by value
                f0 = lowest_bit(matches)
                f1 = lowest_bit(matches & (matches - 1))
                _stake_r(work, n, seat, out, row, c, 2, r, own, f0, f1)
            else:  # none (c itself is at stake), one or three: all taken
                _stake_r(work, n, seat, out, row, c, 2 * m if m < 3 else 4, r, own | matches, -1, -1)


@kernel
def _write_actions_r(e, seat, out, row):
    """The action pieces (``action_takes`` to ``rival_run``, module docstring): zero, then
    the acting seat's actions when ``seat`` is the one to act. Every seat's suit words
    are read once (``rules.rise_base``: a capture's cards share one rank, so each action
    costs only the cheap rank part per seat and suit). The field cards of a rank are a
    bit set of suits, read from ``loc``."""
    for k in range(O_TAKES, O_RIVAL_RUN + 2 * NUM_CARDS):
        out[row, k] = _ZERO
    if e.status != 0 or np.int64(e.current) != seat or e.phase == _DECIDE:
        return
    n = np.int64(e.cfg_players)
    work = stack_i64(_WORK)
    _bases_r(e, work, n * NUM_SUITS)
    if e.phase != _PLAY:  # CHOOSE_*: take field card f with the pending card
        _choose_actions_r(e, seat, out, row, work, n)
    else:
        _play_actions_r(e, seat, out, row, work, n)


def decode_observation(vector: np.ndarray, num_players: int | None = None) -> dict[str, np.ndarray]:
    """Split an observation vector (``(D,)`` or ``(B, D)``) into its named pieces, in game
    units (counts, rounds, chips, scores; flags and one-hots as 0/1).

    ``num_players`` (2..4) is inferred from the length when omitted.

    Raises:
        ValueError: if the length matches no player count.
    """
    v = np.asarray(vector)
    if num_players is None:
        if v.ndim == 0:
            raise ValueError("observation must be a vector, got a scalar")
        dims = {observation_dim(p): p for p in range(MIN_PLAYERS, MAX_PLAYERS + 1)}
        if v.shape[-1] not in dims:
            raise ValueError(
                f"observation length {v.shape[-1]} matches no player count "
                f"(allowed {sorted(dims)} for 2..4 players)"
            )
        num_players = dims[v.shape[-1]]
    return observation_layout(num_players).decode(v)
