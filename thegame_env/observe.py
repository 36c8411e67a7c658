"""The Game's observation: named pieces in one flat float32 vector in [0, 1], from any
seat's view.

Pieces (in buffer order; ``P`` = number of seats), each with the largest value it takes
in game units (``high``; the vector holds ``value / high``, :mod:`tabletop_core.contract.encoders`)::

    piece           shape  high  meaning (game units, as decode_observation returns them)
    hand            (98,)  flag  1 if the seat holds card c (index c - 2)
    played_cards    (98,)  flag  1 if card c is on a pile (public)
    pile_tops       (4,)   100   top card value of piles 0-3 (1 / 100 before the first card)
    fire_tops       (4,)   flag  1 if that pile's top is an uncovered fire card (On Fire)
    fire_deadline   (4,)   2     turn ends left to cover it: 1 = by the end of this turn,
                                 2 = by the end of the next turn, 0 = no fire card on top
    draw_pile_size  ()     98    cards left to draw
    plays_this_turn ()     8     cards placed this turn (at most a full hand)
    min_plays_left  ()     3     plays still owed this turn
    is_my_turn      ()     flag  1 if the observing seat is the active player
    play_fit        (4, 98) 100  how close card c lands to pile p's top, for each card the
                                 seat holds and each pile it may go on (rules.can_place):
                                 100 - |c - top| for a play in the pile's direction, 100 for
                                 the backwards trick, 0 where it may not go (all 0 once
                                 the game is over); entry
                                 ``pile * 98 + (c - 2)`` is the action that plays it
    hand_sizes      (P,)   8     cards held, seat order starting at the observer (index 0 = self)

``play_fit`` is the game's action piece (:data:`ACTION_PIECES`): its entry ``a`` describes
action ``a``, and the trainer's network adds a learned multiple of it to that action's
logit (``docs/rules/thegame.md``, "Observation"). It restates nothing: the kernel asks
``rules.can_place`` which plays exist.

The declaration is :data:`FIXED_PIECES` (+ ``hand_sizes``); the kernel multiplies by the
reciprocals (``S_*`` constants) read from it. Never another seat's cards, nor the draw
pile's order (tested).
"""

from __future__ import annotations

from functools import cache

import numpy as np

from tabletop_core.contract.encoders import ObservationLayout
from tabletop_core.kernel.jit import kernel

from .rules import can_place, min_plays_now_r, play_jump
from .spec import DESCENDING_START, MAX_HAND, MIN_CARD, MIN_PLAYS_LEVEL1, NUM_CARDS, NUM_PILES

FIRE_DEADLINE_MAX = 2  # a fire card is covered by the end of the next turn at the latest

FIXED_PIECES = [
    ("hand", (NUM_CARDS,), 1, "flag"),
    ("played_cards", (NUM_CARDS,), 1, "flag"),
    ("pile_tops", (NUM_PILES,), DESCENDING_START, "count"),
    ("fire_tops", (NUM_PILES,), 1, "flag"),
    ("fire_deadline", (NUM_PILES,), FIRE_DEADLINE_MAX, "count"),
    ("draw_pile_size", (), NUM_CARDS, "count"),
    ("plays_this_turn", (), MAX_HAND, "count"),
    ("min_plays_left", (), MIN_PLAYS_LEVEL1, "count"),
    ("is_my_turn", (), 1, "flag"),
    ("play_fit", (NUM_PILES, NUM_CARDS), DESCENDING_START, "count"),
]


ACTION_PIECES = ("play_fit",)
"""The pieces whose entry ``a`` describes action ``a`` (:attr:`GameDef.action_pieces`)."""


def observation_layout(options) -> ObservationLayout:
    """The layout for ``options`` (an ``Options``, or the number of seats)."""
    return _layout(getattr(options, "num_players", options))


@cache
def _layout(num_players: int) -> ObservationLayout:
    """The :class:`ObservationLayout` for ``num_players`` seats (``hand_sizes`` last)."""
    return ObservationLayout(FIXED_PIECES + [("hand_sizes", (int(num_players),), MAX_HAND, "count")])


_L = observation_layout(1)
O_HAND = _L.offset["hand"]
O_PLAYED = _L.offset["played_cards"]
O_PILES = _L.offset["pile_tops"]
O_FIRE = _L.offset["fire_tops"]
O_DEADLINE = _L.offset["fire_deadline"]
O_DRAW = _L.offset["draw_pile_size"]
O_PLAYS = _L.offset["plays_this_turn"]
O_OWED = _L.offset["min_plays_left"]
O_MY_TURN = _L.offset["is_my_turn"]
O_HAND_SIZES = _L.offset["hand_sizes"]
O_FIT = _L.offset["play_fit"]
S_FIT = _L.scale["play_fit"]
# reciprocal scales of the counts (float32 constants compiled into the kernel)
S_PILES = _L.scale["pile_tops"]
S_DEADLINE = _L.scale["fire_deadline"]
S_DRAW = _L.scale["draw_pile_size"]
S_PLAYS = _L.scale["plays_this_turn"]
S_OWED = _L.scale["min_plays_left"]
S_HAND_SIZES = _L.scale["hand_sizes"]


def observation_dim(num_players: int) -> int:
    return observation_layout(num_players).dim


_ONE = np.float32(1.0)
_ZERO = np.float32(0.0)


@kernel
def observe_r(e, seat, out, row):
    """Write the observation of the record ``e`` from ``seat``'s view into row ``row`` of
    ``out`` ((B, dim) float32; ``rules`` explains the ``_r`` kernels and
    ``rules.legal_mask_r`` the row index).

    Reads only what ``seat`` may know: its own hand and the public table. Every float of
    ``out[row]`` is written (no prior zeroing is needed).

    ``played_cards`` is converted by one vectorized loop; ``hand`` is cleared and then
    gets a 1 per held card (at an unsigned column index: no negative-index code).
    Allocates nothing."""
    seat = np.int64(seat)
    for c in range(NUM_CARDS):
        out[row, O_HAND + c] = _ZERO
    for k in range(e.hand_size[seat]):
        out[row, np.uint32(np.int32(e.hand[seat, k]) + np.int32(O_HAND - MIN_CARD))] = _ONE
    played = e.played
    for c in range(NUM_CARDS):
        out[row, O_PLAYED + c] = played[c]
    turn = np.int64(e.turn)
    for p in range(NUM_PILES):
        out[row, O_PILES + p] = np.float32(e.piles[p]) * S_PILES
        ft = np.int64(e.fire_turn[p])
        on = ft >= 0
        out[row, O_FIRE + p] = _ONE if on else _ZERO
        out[row, O_DEADLINE + p] = np.float32(ft + 2 - turn) * S_DEADLINE if on else _ZERO
    out[row, O_DRAW] = np.float32(NUM_CARDS - np.int64(e.deck_pos)) * S_DRAW
    plays = np.int64(e.plays_this_turn)
    out[row, O_PLAYS] = np.float32(plays) * S_PLAYS
    playing = e.status == 0
    owed = min_plays_now_r(e) - plays
    out[row, O_OWED] = np.float32(owed) * S_OWED if owed > 0 and playing else _ZERO
    out[row, O_MY_TURN] = _ONE if e.current == seat and playing else _ZERO
    for c in range(NUM_PILES * NUM_CARDS):
        out[row, O_FIT + c] = _ZERO
    for k in range(e.hand_size[seat] if playing else 0):  # no play once the game is over
        card = np.int64(e.hand[seat, k])
        col = np.uint32(np.int32(card) + np.int32(O_FIT - MIN_CARD))
        for p in range(NUM_PILES):  # no branch on the pile: 0 where the card may not go
            top = np.int64(e.piles[p])
            jump = play_jump(top, p, card)
            fit = DESCENDING_START if jump < 0 else DESCENDING_START - jump
            fit *= np.int64(can_place(top, p, card))
            out[row, col + np.uint32(p * NUM_CARDS)] = np.float32(fit) * S_FIT
    n = np.int64(e.cfg_players)
    p = seat  # seat of index k: (seat + k) % n
    for k in range(n):
        out[row, O_HAND_SIZES + k] = np.float32(e.hand_size[p]) * S_HAND_SIZES
        p += 1
        if p == n:
            p = 0


def decode_observation(vector: np.ndarray, num_players: int | None = None) -> dict[str, np.ndarray]:
    """Split an observation vector (``(D,)`` or ``(B, D)``) into its named pieces, in game
    units (card values, counts; flags as 0/1).

    ``num_players`` is inferred from the length when omitted.

    Raises:
        ValueError: if the length matches no player count.
    """
    v = np.asarray(vector)
    if num_players is None:
        if v.ndim == 0:
            raise ValueError("observation must be a vector, got a scalar")
        num_players = v.shape[-1] - _L.dim + 1
        if not 1 <= num_players <= 5:
            raise ValueError(
                f"observation length {v.shape[-1]} matches no player count "
                f"(allowed {_L.dim}..{_L.dim + 4} for 1..5 players)"
            )
    return observation_layout(num_players).decode(v)
