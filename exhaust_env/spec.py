"""Exhaust: constants, card ids, combo areas, action-id layout and options (``docs/rules/exhaust.md``).

Card kinds (hand, selection and played cards are counts per kind, ``NUM_KINDS = 61``)::

    kind = colour * 15 + (number - 1)   number card, colour 0 red, 1 blue, 2 yellow, 3 green
    COPY_KIND = 60                      a copy card (the 4 copies are identical)

Physical card ids 0..63 (deck order): ids 0..59 are the number cards (id == kind), ids
60..63 the four copy cards (kind 60).

Combo areas (fixed slots; ``NUM_AREAS = 10``)::

    SINGLE_0..SINGLE_3 = 0..3   the Single areas in use (4 for 4-5 players: one per colour;
                                2 for 3 players: 0 = red+yellow, 1 = blue+green;
                                1 for 1-2 players / solo: 0 takes every colour);
                                unused slots never accept cards
    PAIR = 4, THREE = 5, FOUR = 6   number-restricted sets
    STRAIGHT = 7, FLUSH = 8, ANY = 9   count-restricted

Action ids (``NUM_ACTIONS = 73``)::

    ADD_OFFSET + kind     = 0..60   add one card of ``kind`` from the hand to the selection
                                    (60: "a copy card")
    CAST_OFFSET + area    = 61..70  cast the selection onto combo ``area``
    PLAY_TIME_MAGIC       = 71      play one Time Magic card (selection must be empty)
    FLIP_EXHAUST          = 72      long game: flip the own face-up Exhaust card face down
                                    (selection must be empty)
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

import numpy as np

from tabletop_core.contract.options import check_options, option

# --- Cards (docs/rules/exhaust.md "Components") ----------------------------------------------
NUM_COLOURS = 4
NUM_NUMBERS = 15
NUM_NUMBER_CARDS = NUM_COLOURS * NUM_NUMBERS  # 60
NUM_COPIES = 4
NUM_CARDS = NUM_NUMBER_CARDS + NUM_COPIES  # 64 physical spell cards
COPY_KIND = NUM_NUMBER_CARDS  # 60
NUM_KINDS = NUM_NUMBER_CARDS + 1  # 61
COLOUR_NAMES = ("red", "blue", "yellow", "green")
COLOUR_LETTERS = ("R", "B", "Y", "G")
TIME_MAGIC_CARDS = 16
REPLENISH_SIZE = 4
NPC_HAND = 5  # the NPC draws its open hand up to 5

# --- Combo areas --------------------------------------------------------------------------
MAX_SINGLES = 4
PAIR = 4
THREE = 5
FOUR = 6
STRAIGHT = 7
FLUSH = 8
ANY = 9
NUM_AREAS = 10
MIN_COUNT_PLAY = 3  # first play on Straight / Flush / Any


NUM_AREA_KINDS = 7
# kind of each area slot (observation piece ``area_kind`` is a one-hot of it):
# 0 Single, 1 Pair, 2 Three, 3 Four, 4 Straight, 5 Flush, 6 Any
AREA_KIND = (0, 0, 0, 0, 1, 2, 3, 4, 5, 6)
AREA_NAMES = (
    "Single",
    "Single",
    "Single",
    "Single",
    "Pair",
    "3 cards",
    "4 cards",
    "Straight",
    "Flush",
    "Any",
)

# --- Players, deal ------------------------------------------------------------------------
MIN_PLAYERS = 2
MAX_PLAYERS = 5
MAX_SEATS = 5  # seat slots in the State (solo uses 2: the player and the NPC)
HAND_SIZE = {2: 15, 3: 15, 4: 15, 5: 12}
SOLO_HAND = 15
NUM_SINGLES = {1: 1, 2: 1, 3: 2, 4: 4, 5: 4}
NPC_SEAT = 1  # seat slot of the NPC in solo mode
MIN_NPC_DECK = 1
MAX_NPC_DECK = NUM_CARDS - SOLO_HAND - REPLENISH_SIZE  # 45

# --- Actions ------------------------------------------------------------------------------
ADD_OFFSET = 0
CAST_OFFSET = ADD_OFFSET + NUM_KINDS  # 61
PLAY_TIME_MAGIC = CAST_OFFSET + NUM_AREAS  # 71
FLIP_EXHAUST = PLAY_TIME_MAGIC + 1  # 72
NUM_ACTIONS = FLIP_EXHAUST + 1  # 73

# --- Episode length bound ------------------------------------------------------------------
# A round: at most 64 adds, 64 casts, 2 Time Magic plays per cast (each play is paid by
# a card won by a combo, at most 2 a cast), 1 flip per seat. A long game has at most
# MAX_PLAYERS + 1 rounds (a round gives an Exhaust card; the second one ends the game).
MAX_ROUND_STEPS = NUM_CARDS + NUM_CARDS + 2 * NUM_CARDS + TIME_MAGIC_CARDS + MAX_PLAYERS
MAX_EPISODE_STEPS = (MAX_PLAYERS + 1) * MAX_ROUND_STEPS


class Mode(IntEnum):
    """Game mode (option ``mode``)."""

    STANDARD = 0
    LONG = 1
    SOLO = 2


MODE_NAMES = {"standard": Mode.STANDARD, "long": Mode.LONG, "solo": Mode.SOLO}


class Status(IntEnum):
    """Episode status stored in ``State.status``."""

    PLAYING = 0
    OVER = 1  # the episode ended; ``State.loser`` is the seat that lost


def kind_of(colour: int, number: int) -> int:
    """Card kind of the number card ``number`` (1..15) of ``colour`` (0..3)."""
    if not 0 <= colour < NUM_COLOURS:
        raise ValueError(f"colour must be 0..3, got {colour}")
    if not 1 <= number <= NUM_NUMBERS:
        raise ValueError(f"number must be 1..15, got {number}")
    return colour * NUM_NUMBERS + number - 1


def card_name(kind: int) -> str:
    """``"R7"``, ``"G15"``, ``"C"`` (copy) for a card kind (0..60)."""
    if kind == COPY_KIND:
        return "C"
    if not 0 <= kind < COPY_KIND:
        raise ValueError(f"card kind must be 0..60, got {kind}")
    return f"{COLOUR_LETTERS[kind // NUM_NUMBERS]}{kind % NUM_NUMBERS + 1}"


def parse_card(name: str) -> int:
    """Inverse of :func:`card_name` (``"R7"`` -> 6, ``"C"`` -> 60). Raises ValueError."""
    name = name.strip().upper()
    if name == "C":
        return COPY_KIND
    if len(name) >= 2 and name[0] in COLOUR_LETTERS and name[1:].isdigit():
        return kind_of(COLOUR_LETTERS.index(name[0]), int(name[1:]))
    raise ValueError(f"not a card name: {name!r} (use R/B/Y/G + 1..15, or C for a copy)")


def area_label(area: int, num_singles: int) -> str:
    """Readable area name, e.g. ``"Single red"``, ``"Single red+yellow"``, ``"Flush"``."""
    if area < MAX_SINGLES:
        if area >= num_singles:
            return "Single (unused)"
        if num_singles == 1:
            return "Single"
        if num_singles == 2:
            return "Single red+yellow" if area == 0 else "Single blue+green"
        return f"Single {COLOUR_NAMES[area]}"
    return AREA_NAMES[area]


def action_name(action: int, num_singles: int | np.ndarray = 4) -> str:
    """Readable action name: ``"add R7"``, ``"cast on Pair"``, ``"play Time Magic"``;
    ``num_singles`` is the number of Single areas, or a one-env State ((1,) array) whose
    option ``cfg_singles`` gives it (how the adapters call it)."""
    if isinstance(num_singles, np.ndarray):
        num_singles = int(num_singles["cfg_singles"][0])
    if ADD_OFFSET <= action < CAST_OFFSET:
        return f"add {card_name(action - ADD_OFFSET)}"
    if CAST_OFFSET <= action < PLAY_TIME_MAGIC:
        return f"cast on {area_label(action - CAST_OFFSET, num_singles)}"
    if action == PLAY_TIME_MAGIC:
        return "play Time Magic"
    if action == FLIP_EXHAUST:
        return "flip Exhaust card"
    return f"invalid action {action}"


@dataclass(frozen=True)
class Options:
    """Validated options of one game of Exhaust.

    Args:
        num_players: seats, 2..5 (``None``: 4; in solo mode ``None`` or 1 — one player
            against the NPC).
        mode: ``"standard"`` (one round), ``"long"`` (Exhaust-card variant: rounds until
            a player holds two Exhaust cards) or ``"solo"`` (one player vs the NPC).
        npc_deck_size: cards in the NPC deck (solo), 1..45.
        zero_sum: rewards sum to zero (loser -1, every other seat +1/(N-1)) instead of the
            rulebook's loser -1 / others +1.
        start_player: seat of the first turn (standard / long; solo: the player starts).

    Raises:
        ValueError: for any value outside the ranges above (naming the option).
    """

    num_players: int | None = option(
        None,
        "number of players: 2..5 (default 4); 1 only with --mode solo (its default)",
        low=1,
        high=MAX_PLAYERS,
        flag="--players",
    )
    mode: str = option(
        "standard",
        "'standard' (one round), 'long' (Exhaust cards) or 'solo' (vs the NPC)",
        choices=tuple(MODE_NAMES),
    )
    npc_deck_size: int = option(15, "cards in the NPC deck (solo)", low=MIN_NPC_DECK, high=MAX_NPC_DECK)
    zero_sum: bool = option(False, "rewards sum to zero (loser -1, others +1/(N-1))")
    start_player: int = option(0, "seat of the first turn (solo: 0)", low=0, high=MAX_PLAYERS - 1)

    def __post_init__(self):
        check_options(self)  # each option against its declaration above
        n = self.num_players
        if self.mode == "solo":
            if n is not None and n != 1:
                raise ValueError(f"num_players must be 1 (or None) in solo mode, got {n}")
        elif n is not None and not MIN_PLAYERS <= n <= MAX_PLAYERS:
            solo = " (one player plays the NPC with --mode solo)" if n == 1 else ""
            raise ValueError(f"num_players must be in 2..5 for mode {self.mode!r}, got {n}{solo}")
        sp = self.start_player
        if sp >= self.seats:
            raise ValueError(f"start_player must be a seat in 0..{self.seats - 1}, got {sp!r}")
        if self.mode == "solo" and sp != 0:
            raise ValueError(f"start_player must be 0 in solo mode (the player starts), got {sp!r}")

    @property
    def players(self) -> int:
        """Number of agents (1 in solo)."""
        if self.mode == "solo":
            return 1
        return 4 if self.num_players is None else int(self.num_players)

    @property
    def seats(self) -> int:
        """Seats at the table (solo: 2, the player and the NPC)."""
        return 2 if self.mode == "solo" else self.players

    @property
    def num_singles(self) -> int:
        """Single areas in use: 4 (4-5 players), 2 (3 players), 1 (2 players, solo)."""
        return NUM_SINGLES[self.players]

    @property
    def hand_size(self) -> int:
        """Cards dealt to each player: 15 (2-4 players, solo), 12 (5 players)."""
        return SOLO_HAND if self.mode == "solo" else HAND_SIZE[self.players]
