"""Exhaust's observation: named pieces in one flat float32 vector in [0, 1], from any
seat's view.

Pieces (buffer order; ``S`` = seats at the table: the players, or 2 in solo with the NPC
as seat 1; per-seat pieces start at the observer, index 0 = self), each with the largest
value it takes in game units (``high``; the vector holds ``value / high``, see
:mod:`tabletop_core.contract.encoders`; ``card`` = 1 per number-card kind, 4 for the copy kind)::

    piece            shape    high  meaning (game units, as decode_observation returns them)
    hand             (61,)    card  own cards, counts per kind (colour*15 + number-1; 60 copies)
    selection        (61,)    card  the cards selected so far this turn (the acting seat's)
    area_top         (10,)    15/64 per area: top number (Single/Pair/3/4, high 15) or last
                                    play's count (Straight/Flush/Any, high 64); 0 when empty
    area_cards       (10,)    64    cards lying in each area
    area_kind        (10, 7)  1-hot spec.AREA_KIND of each area slot (zeros: unused Single)
    area_colours     (10, 4)  flag  colours a Single area accepts (zeros for other areas)
    time_magic       (S,)     16    Time Magic cards held per seat
    hand_sizes       (S,)     64    cards held per seat (solo: the NPC's open hand)
    exhaust_cards    (S,)     2     Exhaust cards held per seat (long game; 2 loses the game)
    exhaust_face_up  (S,)     flag  1 if the seat may still flip its Exhaust card this round
    time_magic_pile  ()       16    Time Magic cards in the pile
    replenish_size   ()       4     cards left in the replenishment deck
    played_cards     (61,)    card  cards on the combo areas this round (public), per kind
    npc_hand         (61,)    card  solo: the NPC's open hand (public), counts per kind
    npc_deck_size    ()       45    solo: cards left in the NPC deck
    is_my_turn       ()       flag  1 if the observing seat is to act
    round            ()       6     round index (long game: at most 6 rounds), 0 first

The declaration is :func:`observation_layout`; the kernel multiplies by the reciprocals
(``S_*`` constants) read from it.

Never another seat's hand, the replenishment deck's or NPC deck's cards, nor which cards
were left out of the game (tested).
"""

from __future__ import annotations

from functools import cache

import numpy as np

from tabletop_core.contract.encoders import ObservationLayout
from tabletop_core.kernel.jit import kernel

from .rules import colour_accepted
from .spec import (
    AREA_KIND,
    COPY_KIND,
    MAX_NPC_DECK,
    MAX_PLAYERS,
    MAX_SINGLES,
    NPC_SEAT,
    NUM_AREA_KINDS,
    NUM_AREAS,
    NUM_CARDS,
    NUM_COLOURS,
    NUM_COPIES,
    NUM_KINDS,
    NUM_NUMBERS,
    REPLENISH_SIZE,
    STRAIGHT,
    TIME_MAGIC_CARDS,
    Mode,
)

_SOLO = int(Mode.SOLO)

CARD_HIGH = np.ones(NUM_KINDS)
CARD_HIGH[COPY_KIND] = NUM_COPIES  # one card of each number-card kind, 4 copy cards
AREA_TOP_HIGH = np.where(np.arange(NUM_AREAS) < STRAIGHT, NUM_NUMBERS, NUM_CARDS)
MAX_EXHAUST = 2  # the second Exhaust card loses the game
MAX_ROUNDS = MAX_PLAYERS + 1  # a round gives one Exhaust card to its loser


def observation_layout(options) -> ObservationLayout:
    """The layout for ``options`` (an ``Options``, or the number of seats)."""
    return _layout(getattr(options, "seats", options))


@cache
def _layout(seats: int) -> ObservationLayout:
    """The :class:`ObservationLayout` for ``seats`` seats at the table (2..5)."""
    s = int(seats)
    return ObservationLayout(
        [
            ("hand", (NUM_KINDS,), CARD_HIGH, "count"),
            ("selection", (NUM_KINDS,), CARD_HIGH, "count"),
            ("area_top", (NUM_AREAS,), AREA_TOP_HIGH, "count"),
            ("area_cards", (NUM_AREAS,), NUM_CARDS, "count"),
            ("area_kind", (NUM_AREAS, NUM_AREA_KINDS), 1, "one_hot"),
            ("area_colours", (NUM_AREAS, NUM_COLOURS), 1, "flag"),
            ("time_magic", (s,), TIME_MAGIC_CARDS, "count"),
            ("hand_sizes", (s,), NUM_CARDS, "count"),
            ("exhaust_cards", (s,), MAX_EXHAUST, "count"),
            ("exhaust_face_up", (s,), 1, "flag"),
            ("time_magic_pile", (), TIME_MAGIC_CARDS, "count"),
            ("replenish_size", (), REPLENISH_SIZE, "count"),
            ("played_cards", (NUM_KINDS,), CARD_HIGH, "count"),
            ("npc_hand", (NUM_KINDS,), CARD_HIGH, "count"),
            ("npc_deck_size", (), MAX_NPC_DECK, "count"),
            ("is_my_turn", (), 1, "flag"),
            ("round", (), MAX_ROUNDS, "count"),
        ]
    )


def _fixed(name: str) -> int:
    return observation_layout(2).offset[name]


O_HAND = _fixed("hand")
O_SEL = _fixed("selection")
O_TOP = _fixed("area_top")
O_ACARDS = _fixed("area_cards")
O_KIND = _fixed("area_kind")
O_COLOURS = _fixed("area_colours")
O_SEATS = _fixed("time_magic")  # the four per-seat pieces follow, S floats each
R_PILE = 0
R_REPL = 1
R_PLAYED = 2
R_NPC = R_PLAYED + NUM_KINDS
R_NPC_DECK = R_NPC + NUM_KINDS
R_MY_TURN = R_NPC_DECK + 1
R_ROUND = R_MY_TURN + 1
# reciprocal scales (float32 constants compiled into the kernel)
_L2 = observation_layout(2)
S_CARD = _L2.scale["hand"]  # (61,), the same for selection, played_cards, npc_hand
S_TOP = _L2.scale["area_top"]  # (10,)
S_ACARDS = _L2.scale["area_cards"]
S_TM = _L2.scale["time_magic"]
S_HAND_N = _L2.scale["hand_sizes"]
S_EXHAUST = _L2.scale["exhaust_cards"]
S_PILE = _L2.scale["time_magic_pile"]
S_REPL = _L2.scale["replenish_size"]
S_NPC_DECK = _L2.scale["npc_deck_size"]
S_ROUND = _L2.scale["round"]


def observation_dim(seats: int) -> int:
    """Length of the flat observation vector with ``seats`` seats at the table."""
    return observation_layout(seats).dim


def _static_pieces() -> np.ndarray:
    """``area_kind`` and ``area_colours`` (adjacent in the vector) for each count of Single
    areas in use (row = ``cfg_singles``, 0..4): they depend on nothing else."""
    table = np.zeros((MAX_SINGLES + 1, O_SEATS - O_KIND), np.float32)
    for singles in (1, 2, 4):
        row = table[singles]
        for a in range(NUM_AREAS):
            if a < MAX_SINGLES:
                if a < singles:
                    row[a * NUM_AREA_KINDS] = 1.0
                    for c in range(NUM_COLOURS):
                        if colour_accepted(singles, a, c):
                            row[O_COLOURS - O_KIND + a * NUM_COLOURS + c] = 1.0
            else:
                row[a * NUM_AREA_KINDS + AREA_KIND[a]] = 1.0
    return table


assert O_COLOURS == O_KIND + NUM_AREAS * NUM_AREA_KINDS and O_SEATS == O_COLOURS + NUM_AREAS * NUM_COLOURS
_STATIC = _static_pieces()
_NUM_STATIC = _STATIC.shape[1]


@kernel
def _fit(obs, start, n):
    """``n``, cut short where a row of ``obs`` ends. A trip count LLVM cannot fold: it
    then vectorizes the conversion loops instead of unrolling them into scalar code."""
    return min(n, obs.shape[1] - start)


@kernel
def observe_r(e, seat, obs, row):
    """Write the env record ``e``'s observation from ``seat``'s view into ``obs[row]`` (``obs``
    (N, dim) float32; the batch kernels pass the whole buffer and a row, which spares
    numba's reference counting of a row view per env).

    Only what ``seat`` may see: its own hand, the selection when it is the acting seat,
    and public facts (docs/rules/exhaust.md "What the environment must make of it"). Every
    entry of the row is written once (no zeroing pass).
    """
    acting = e.status == 0 and e.current == seat
    hand = e.hand[seat]
    for k in range(_fit(obs, O_HAND, NUM_KINDS)):
        obs[row, O_HAND + k] = np.float32(hand[k]) * S_CARD[k]
    sel = e.sel
    if acting:
        for k in range(_fit(obs, O_SEL, NUM_KINDS)):
            obs[row, O_SEL + k] = np.float32(sel[k]) * S_CARD[k]
    else:
        for k in range(NUM_KINDS):
            obs[row, O_SEL + k] = 0.0
    tops = e.area_top
    for a in range(_fit(obs, O_TOP, NUM_AREAS)):
        obs[row, O_TOP + a] = np.float32(tops[a]) * S_TOP[a]
    area_n = e.area_n
    for a in range(_fit(obs, O_ACARDS, NUM_AREAS)):
        obs[row, O_ACARDS + a] = np.float32(area_n[a]) * S_ACARDS
    static = _STATIC[e.cfg_singles]
    for j in range(_NUM_STATIC):
        obs[row, O_KIND + j] = static[j]
    # zero-extended: LLVM then knows the offsets below are >= 0 and drops numba's
    # negative-index wraparound (which turns the copies into scatters)
    n = np.int64(np.uint8(e.cfg_seats))
    tm = e.tm
    hand_n = e.hand_n
    exhaust = e.exhaust
    exhaust_up = e.exhaust_up
    for k in range(n):
        other = (seat + k) % n
        obs[row, O_SEATS + k] = np.float32(tm[other]) * S_TM
        obs[row, O_SEATS + n + k] = np.float32(hand_n[other]) * S_HAND_N
        obs[row, O_SEATS + 2 * n + k] = np.float32(exhaust[other]) * S_EXHAUST
        obs[row, O_SEATS + 3 * n + k] = exhaust_up[other]
    r = O_SEATS + 4 * n
    obs[row, r + R_PILE] = np.float32(e.tm_pile) * S_PILE
    obs[row, r + R_REPL] = np.float32(e.repl_n) * S_REPL
    played = e.played
    for k in range(_fit(obs, r + R_PLAYED, NUM_KINDS)):
        obs[row, r + R_PLAYED + k] = np.float32(played[k]) * S_CARD[k]
    if e.cfg_mode == _SOLO:
        npc = e.hand[NPC_SEAT]
        for k in range(_fit(obs, r + R_NPC, NUM_KINDS)):
            obs[row, r + R_NPC + k] = np.float32(npc[k]) * S_CARD[k]
    else:
        for k in range(NUM_KINDS):
            obs[row, r + R_NPC + k] = 0.0
    obs[row, r + R_NPC_DECK] = np.float32(e.npc_n) * S_NPC_DECK
    obs[row, r + R_MY_TURN] = 1.0 if acting else 0.0
    obs[row, r + R_ROUND] = np.float32(e.round) * S_ROUND


def decode_observation(vector: np.ndarray, seats: int | None = None) -> dict[str, np.ndarray]:
    """Split an observation vector (``(D,)`` or ``(B, D)``) into its named pieces, in game
    units (card counts, numbers, rounds; flags and one-hots as 0/1).

    ``seats`` (seats at the table: players, or 2 in solo) is inferred from the length
    when omitted.

    Raises:
        ValueError: if the length matches no seat count.
    """
    v = np.asarray(vector)
    if seats is None:
        if v.ndim == 0:
            raise ValueError("observation must be a vector, got a scalar")
        base = observation_layout(2).dim - 8
        extra = v.shape[-1] - base
        if extra % 4 != 0 or not 2 <= extra // 4 <= 5:
            raise ValueError(
                f"observation length {v.shape[-1]} matches no seat count "
                f"(allowed {base + 8}, {base + 12}, {base + 16}, {base + 20} for 2..5 seats)"
            )
        seats = extra // 4
    return observation_layout(seats).decode(v)
