"""Exhaust's observation: named pieces in one flat float32 vector, from any seat's view.

Pieces (buffer order; ``S`` = seats at the table: the players, or 2 in solo with the NPC
as seat 1; per-seat pieces start at the observer, index 0 = self)::

    hand             (61,)    own cards, counts per kind (colour*15 + number-1; 60 copies)
    selection        (61,)    the cards selected so far this turn (the acting seat's)
    area_top         (10,)    per area: top number (Single/Pair/3/4) or last play's count
                              (Straight/Flush/Any); 0 when empty or unused
    area_cards       (10,)    cards lying in each area
    area_kind        (10, 7)  one-hot spec.Kind of each area slot (zeros: unused Single)
    area_colours     (10, 4)  colours a Single area accepts (zeros for other areas)
    time_magic       (S,)     Time Magic cards held per seat
    hand_sizes       (S,)     cards held per seat (solo: the NPC's open hand)
    exhaust_cards    (S,)     Exhaust cards held per seat (long game)
    exhaust_face_up  (S,)     1 if the seat may still flip its Exhaust card this round
    time_magic_pile  ()       Time Magic cards in the pile
    replenish_size   ()       cards left in the replenishment deck
    played_cards     (61,)    cards on the combo areas this round (public), counts per kind
    npc_hand         (61,)    solo: the NPC's open hand (public), counts per kind
    npc_deck_size    ()       solo: cards left in the NPC deck
    is_my_turn       ()       1 if the observing seat is to act
    round            ()       round index (long game), 0 first

Never another seat's hand, the replenishment deck's or NPC deck's cards, nor which cards
were left out of the game (tested).
"""

from __future__ import annotations

from functools import cache

import numpy as np

from tabletop_core.encoders import ObservationLayout
from tabletop_core.jit import kernel

from .rules import colour_accepted
from .spec import (
    AREA_KIND,
    MAX_SINGLES,
    NPC_SEAT,
    NUM_AREA_KINDS,
    NUM_AREAS,
    NUM_COLOURS,
    NUM_KINDS,
    Mode,
)

_SOLO = int(Mode.SOLO)


@cache
def observation_layout(seats: int) -> ObservationLayout:
    """The :class:`ObservationLayout` for ``seats`` seats at the table (2..5)."""
    s = int(seats)
    return ObservationLayout(
        [
            ("hand", (NUM_KINDS,)),
            ("selection", (NUM_KINDS,)),
            ("area_top", (NUM_AREAS,)),
            ("area_cards", (NUM_AREAS,)),
            ("area_kind", (NUM_AREAS, NUM_AREA_KINDS)),
            ("area_colours", (NUM_AREAS, NUM_COLOURS)),
            ("time_magic", (s,)),
            ("hand_sizes", (s,)),
            ("exhaust_cards", (s,)),
            ("exhaust_face_up", (s,)),
            ("time_magic_pile", ()),
            ("replenish_size", ()),
            ("played_cards", (NUM_KINDS,)),
            ("npc_hand", (NUM_KINDS,)),
            ("npc_deck_size", ()),
            ("is_my_turn", ()),
            ("round", ()),
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
def observe_row(s, i, seat, obs, row):
    """Write env ``i``'s observation from ``seat``'s view into ``obs[row]`` (``obs``
    (N, dim) float32; the batch kernels pass the whole buffer and a row, which spares
    numba's reference counting of a row view per env).

    Only what ``seat`` may see: its own hand, the selection when it is the acting seat,
    and public facts (rules/exhaust.md "What the environment must make of it"). Every
    entry of the row is written once (no zeroing pass).
    """
    e = s[i]
    acting = e.status == 0 and e.current == seat
    hand = e.hand[seat]
    for k in range(_fit(obs, O_HAND, NUM_KINDS)):
        obs[row, O_HAND + k] = hand[k]
    sel = e.sel
    if acting:
        for k in range(_fit(obs, O_SEL, NUM_KINDS)):
            obs[row, O_SEL + k] = sel[k]
    else:
        for k in range(NUM_KINDS):
            obs[row, O_SEL + k] = 0.0
    tops = e.area_top
    for a in range(_fit(obs, O_TOP, NUM_AREAS)):
        obs[row, O_TOP + a] = tops[a]
    area_n = e.area_n
    for a in range(_fit(obs, O_ACARDS, NUM_AREAS)):
        obs[row, O_ACARDS + a] = area_n[a]
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
        obs[row, O_SEATS + k] = tm[other]
        obs[row, O_SEATS + n + k] = hand_n[other]
        obs[row, O_SEATS + 2 * n + k] = exhaust[other]
        obs[row, O_SEATS + 3 * n + k] = exhaust_up[other]
    r = O_SEATS + 4 * n
    obs[row, r + R_PILE] = e.tm_pile
    obs[row, r + R_REPL] = e.repl_n
    played = e.played
    for k in range(_fit(obs, r + R_PLAYED, NUM_KINDS)):
        obs[row, r + R_PLAYED + k] = played[k]
    if e.cfg_mode == _SOLO:
        npc = e.hand[NPC_SEAT]
        for k in range(_fit(obs, r + R_NPC, NUM_KINDS)):
            obs[row, r + R_NPC + k] = npc[k]
    else:
        for k in range(NUM_KINDS):
            obs[row, r + R_NPC + k] = 0.0
    obs[row, r + R_NPC_DECK] = e.npc_n
    obs[row, r + R_MY_TURN] = 1.0 if acting else 0.0
    obs[row, r + R_ROUND] = e.round


@kernel
def observe(s, i, seat, out):
    """Write env ``i``'s observation from ``seat``'s view into ``out`` ((dim,) float32);
    see :func:`observe_row`."""
    observe_row(s, i, seat, out[None, :], 0)


def decode_observation(vector: np.ndarray, seats: int | None = None) -> dict[str, np.ndarray]:
    """Split an observation vector (``(D,)`` or ``(B, D)``) into its named pieces.

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
