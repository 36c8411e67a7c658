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
_AREA_KIND = np.array(AREA_KIND, np.int64)


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


@kernel
def observe(s, i, seat, out):
    """Write env ``i``'s observation from ``seat``'s view into ``out`` ((dim,) float32).

    Only what ``seat`` may see: its own hand, the selection when it is the acting seat,
    and public facts (rules/exhaust.md "What the environment must make of it").
    """
    e = s[i]
    out[:] = 0.0
    acting = e.status == 0 and e.current == seat
    for k in range(NUM_KINDS):
        out[O_HAND + k] = e.hand[seat, k]
        if acting:
            out[O_SEL + k] = e.sel[k]
    singles = e.cfg_singles
    for a in range(NUM_AREAS):
        out[O_TOP + a] = e.area_top[a]
        out[O_ACARDS + a] = e.area_n[a]
        if a < MAX_SINGLES:
            if a < singles:
                out[O_KIND + a * NUM_AREA_KINDS] = 1.0
                for c in range(NUM_COLOURS):
                    if colour_accepted(singles, a, c):
                        out[O_COLOURS + a * NUM_COLOURS + c] = 1.0
        else:
            out[O_KIND + a * NUM_AREA_KINDS + _AREA_KIND[a]] = 1.0
    n = np.int64(e.cfg_seats)
    for k in range(n):
        other = (seat + k) % n
        out[O_SEATS + k] = e.tm[other]
        out[O_SEATS + n + k] = e.hand_n[other]
        out[O_SEATS + 2 * n + k] = e.exhaust[other]
        out[O_SEATS + 3 * n + k] = e.exhaust_up[other]
    r = O_SEATS + 4 * n
    out[r + R_PILE] = e.tm_pile
    out[r + R_REPL] = e.repl_n
    for k in range(NUM_KINDS):
        out[r + R_PLAYED + k] = e.played[k]
        if e.cfg_mode == _SOLO:
            out[r + R_NPC + k] = e.hand[NPC_SEAT, k]
    out[r + R_NPC_DECK] = e.npc_n
    out[r + R_MY_TURN] = 1.0 if acting else 0.0
    out[r + R_ROUND] = e.round


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
