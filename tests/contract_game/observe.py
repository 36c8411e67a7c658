"""Leduc hold'em's observation: named pieces in one flat float32 vector in [0, 1].

Pieces (buffer order; seats ordered from the observer: index 0 = self)::

    piece        shape  kind     meaning
    own_card     (3,)   one_hot  the rank (J, Q, K) of the observer's card
    public_card  (3,)   one_hot  the public card's rank (zeros in round 0)
    round        ()     flag     1 in round 1
    contrib      (2,)   count    chips in the pot: self, opponent (high MAX_CONTRIB)
    raises       ()     count    raises made this round (high MAX_RAISES)
    max_raises   ()     count    raises allowed per round (the option)
    facing_bet   ()     flag     the observer owes chips to continue
    is_my_turn   ()     flag     the observer is to act

Never the opponent's card (tested).
"""

from __future__ import annotations

import numpy as np

from tabletop_core.contract.encoders import ObservationLayout
from tabletop_core.kernel.jit import kernel

from .spec import MAX_CONTRIB, MAX_RAISES, NUM_RANKS, NUM_SEATS

LAYOUT = ObservationLayout(
    [
        ("own_card", (NUM_RANKS,), 1, "one_hot"),
        ("public_card", (NUM_RANKS,), 1, "one_hot"),
        ("round", (), 1, "flag"),
        ("contrib", (NUM_SEATS,), MAX_CONTRIB, "count"),
        ("raises", (), MAX_RAISES, "count"),
        ("max_raises", (), MAX_RAISES, "count"),
        ("facing_bet", (), 1, "flag"),
        ("is_my_turn", (), 1, "flag"),
    ]
)
O_OWN = LAYOUT.offset["own_card"]
O_PUBLIC = LAYOUT.offset["public_card"]
O_ROUND = LAYOUT.offset["round"]
O_CONTRIB = LAYOUT.offset["contrib"]
O_RAISES = LAYOUT.offset["raises"]
O_MAX_RAISES = LAYOUT.offset["max_raises"]
O_FACING = LAYOUT.offset["facing_bet"]
O_MY_TURN = LAYOUT.offset["is_my_turn"]
S_CONTRIB = LAYOUT.scale["contrib"]
S_RAISES = LAYOUT.scale["raises"]

_ONE = np.float32(1.0)
_ZERO = np.float32(0.0)


def observation_layout(options=None) -> ObservationLayout:
    """The layout (the same for every option)."""
    return LAYOUT


@kernel
def observe_r(e, seat, out, row):
    """``seat``'s observation of the record ``e`` into ``out[row]`` ((B, D) float32),
    every entry written; reads the seat's own card and the public table only."""
    seat = np.int64(seat)
    other = 1 - seat
    own = np.int64(e.private[seat]) // 2
    pub = np.int64(e.public) // 2 if e.public >= 0 else -1
    for r in range(NUM_RANKS):
        out[row, O_OWN + r] = _ONE if r == own else _ZERO
        out[row, O_PUBLIC + r] = _ONE if r == pub else _ZERO
    out[row, O_ROUND] = np.float32(e.round)
    out[row, O_CONTRIB] = np.float32(e.contrib[seat]) * S_CONTRIB
    out[row, O_CONTRIB + 1] = np.float32(e.contrib[other]) * S_CONTRIB
    out[row, O_RAISES] = np.float32(e.raises) * S_RAISES
    out[row, O_MAX_RAISES] = np.float32(e.cfg_max_raises) * S_RAISES
    playing = e.status == 0
    out[row, O_FACING] = _ONE if playing and e.contrib[seat] < e.contrib[other] else _ZERO
    out[row, O_MY_TURN] = _ONE if playing and e.current == seat else _ZERO


def decode_observation(vector: np.ndarray) -> dict[str, np.ndarray]:
    """The named pieces of an observation (``(D,)`` or ``(B, D)``) in game units."""
    return LAYOUT.decode(vector)
