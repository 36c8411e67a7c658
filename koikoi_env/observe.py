"""Koikoi's observation: named pieces in one flat float32 vector in [0, 1], from any
seat's view.

Per-seat pieces are in seat order STARTING AT THE OBSERVER: index ``k`` is seat
``(observer + k) % P`` (index 0 = self, 1 = the next seat clockwise). ``P`` = players.

Pieces (in buffer order), each with the largest value it takes in game units (``high``;
the vector holds ``value / high``, see :mod:`tabletop_core.encoders`)::

    piece            shape    high  meaning (game units, as decode_observation returns them)
    hand             (88,)    flag  1 if the observer holds card c
    field            (88,)    flag  1 if card c lies face up on the field
    pending_card     (88,)    1-hot 1 at the played/flipped card awaiting a choice (CHOOSE_*)
    pending_matches  (88,)    flag  1 at the field cards it may take (the choice; CHOOSE_*)
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

The declaration is :func:`observation_layout`; the kernel multiplies by the reciprocals
(``S_*`` constants) read from it.

Never another seat's hand nor the stock's order (tested).
"""

from __future__ import annotations

from functools import cache

import numpy as np

from tabletop_core.encoders import ObservationLayout
from tabletop_core.jit import kernel

from .rules import RANK_OF, suit_bits_yaku
from .spec import (
    HAND_SIZE,
    MAX_PLAYERS,
    MAX_ROUNDS,
    MAX_TURNS_PER_ROUND,
    MIN_PLAYERS,
    NUM_CARDS,
    NUM_PHASES,
    NUM_SUITS,
    RANKS_PER_SUIT,
    START_CHIPS,
)
from .state import LOC_CAPTURED, LOC_FIELD, LOC_HAND

MAX_CHIPS = START_CHIPS * MAX_PLAYERS  # every chip of the table
MAX_KOIKOI = MAX_TURNS_PER_ROUND // MIN_PLAYERS  # one declaration a turn at most
MAX_YAKU = NUM_SUITS * int(suit_bits_yaku((1 << RANKS_PER_SUIT) - 1))  # every card captured


@cache
def observation_layout(num_players: int) -> ObservationLayout:
    """The :class:`ObservationLayout` for ``num_players`` seats (see the module docstring)."""
    p = int(num_players)
    return ObservationLayout(
        [
            ("hand", (NUM_CARDS,), 1, "flag"),
            ("field", (NUM_CARDS,), 1, "flag"),
            ("pending_card", (NUM_CARDS,), 1, "one_hot"),
            ("pending_matches", (NUM_CARDS,), 1, "flag"),
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
O_PHASE = _L.offset["phase"]
O_DECK = _L.offset["deck_size"]
O_ROUND = _L.offset["round"]
O_LEFT = _L.offset["rounds_left"]
O_CAPT = _L.offset["captured"]
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
    written exactly once (no prior zeroing), the card planes by branch-free loops over
    ``loc`` that LLVM vectorizes.
    """
    n = np.int64(e.cfg_players)
    seat = np.int64(seat)
    loc = e.loc
    playing = e.status == 0
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
    phase = np.int64(e.phase) if playing else -1
    for k in range(NUM_PHASES):
        out[row, O_PHASE + k] = _ONE if k == phase else _ZERO
    out[row, O_DECK] = np.float32(NUM_CARDS - np.int64(e.deck_pos)) * S_DECK
    out[row, O_ROUND] = np.float32(e.round) * S_ROUND
    left = np.int64(e.cfg_rounds) - e.round
    out[row, O_LEFT] = np.float32(left) * S_ROUND if playing and left > 0 else _ZERO
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
