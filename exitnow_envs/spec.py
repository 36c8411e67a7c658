"""Exit Now: constants, square codes, action-id layout, phases and options.

Rules: ``docs/rules/exitnow.md``. The map is 3x3 boards of 7x7 squares (21x21); the map
geometry and square codes are defined in ``geometry.py`` and re-exported here.

Action ids (``NUM_ACTIONS = 471``)::

    ITEM_NONE   = 0                 human, before rolling: use no item (roll the die)
    ITEM_DOUBLE = 1                 human, before rolling: use Double Dice (roll twice)
    ITEM_MOVE7  = 2                 human, before rolling: use Move 7 (no roll)
    DEST_OFFSET + row * 21 + col    human: end the move on square (row, col)      3..443
    CROSS_NO    = 444               human at contact: do not use a Cross
    CROSS_YES   = 445               human at contact: use a Cross (banish the ghost)
    SLIDE_OFFSET + d                ghost: slide in direction d                   446..449
    PASS_OFFSET + d                 ghost: pass the one-square wall in direction d 450..453
    CHIP_OFFSET + p                 ghost player: put the item chip on place p    454..470

Directions ``d``: 0 up (row - 1), 1 right (col + 1), 2 down (row + 1), 3 left (col - 1).
Event-chip places are numbered 0..16 in reading order of the map as dealt; a place keeps
its number when map swaps and centre rotations move it.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

from tabletop_core.contract.options import check_options, option

# Map geometry and square kinds live in geometry.py, below maps.py (whose BoardSet the
# options check); spec re-exports all of them, so every module still reads them from here.
from .geometry import *  # noqa: F403
from .geometry import MAP, NUM_LAYOUTS, NUM_PLACES, NUM_SQUARES
from .maps import BoardSet

# Chips on squares (State.chip).
NO_CHIP = 0
EVENT_CHIP = 1
ITEM_CHIP = 2

# --- Pieces -----------------------------------------------------------------------------
MIN_HUMANS = 1
MAX_HUMANS = 5
MAX_GHOSTS = 3
MAX_SEATS = MAX_HUMANS + 1

# --- Event cards (State.deck) -------------------------------------------------------------
ADD_GHOST = 0
SEAL_A = 1
SEAL_B = 2
SEAL_C = 3
MAP_SWAP = 4
CENTRE_ROTATION = 5
KEY = 6
CROSS = 7
DOUBLE_DICE = 8
MOVE7 = 9
PICKAXE = 10
NUM_CARD_KINDS = 11
FIRST_ITEM = KEY
NUM_ITEM_KINDS = 5  # item kind k = card - FIRST_ITEM: 0 key, 1 cross, 2 double dice, 3 move 7, 4 pickaxe
I_KEY, I_CROSS, I_DOUBLE, I_MOVE7, I_PICKAXE = range(NUM_ITEM_KINDS)
DECK = (
    ADD_GHOST,
    ADD_GHOST,
    SEAL_A,
    SEAL_B,
    SEAL_C,
    MAP_SWAP,
    CENTRE_ROTATION,
    KEY,
    KEY,
    CROSS,
    CROSS,
    DOUBLE_DICE,
    DOUBLE_DICE,
    MOVE7,
    MOVE7,
    PICKAXE,
    PICKAXE,
)
DECK_SIZE = len(DECK)  # 17
CARD_NAMES = (
    "Add Ghost",
    "Seal Door A",
    "Seal Door B",
    "Seal Door C",
    "Map Swap",
    "Centre Rotation",
    "Exit Key",
    "Cross",
    "Double Dice",
    "Move 7",
    "Pickaxe",
)
ITEM_NAMES = CARD_NAMES[FIRST_ITEM:]

# --- Directions -------------------------------------------------------------------------
DIR_NAMES = ("up", "right", "down", "left")

# --- Actions ----------------------------------------------------------------------------
ITEM_NONE = 0
ITEM_DOUBLE = 1
ITEM_MOVE7 = 2
DEST_OFFSET = 3
CROSS_NO = DEST_OFFSET + NUM_SQUARES  # 444
CROSS_YES = CROSS_NO + 1  # 445
SLIDE_OFFSET = CROSS_YES + 1  # 446
PASS_OFFSET = SLIDE_OFFSET + 4  # 450
CHIP_OFFSET = PASS_OFFSET + 4  # 454
NUM_ACTIONS = CHIP_OFFSET + NUM_PLACES  # 471

# --- Rounds -----------------------------------------------------------------------------
DEFAULT_MAX_ROUNDS = 14
MAX_MAX_ROUNDS = 1000
# Agent steps per round (a generous bound): each human at most item + move + item chip +
# five Cross questions; the ghost player 3 ghosts x (3 moves + five Cross questions + item chip).
STEPS_PER_ROUND_BOUND = MAX_HUMANS * 8 + 3 * (3 + 5 + 1)
MAX_EPISODE_STEPS = MAX_MAX_ROUNDS * STEPS_PER_ROUND_BOUND  # longest possible episode (agent steps)


class Phase(IntEnum):
    """Which decision the acting seat faces (``State.phase``)."""

    ITEM = 0  # human before rolling: none / Double Dice / Move 7
    MOVE = 1  # human: destination square
    CROSS = 2  # human at contact: use a Cross or not
    GHOST = 3  # ghost player: the acting ghost's next move
    CHIP = 4  # ghost player: where to put the item chip
    OVER = 5  # episode over


NUM_PHASES = len(Phase)


class Status(IntEnum):
    """Episode status (``State.status``)."""

    PLAYING = 0
    HUMAN_WIN = 1  # a human with an Exit Key reached the exit door
    GHOST_WIN = 2  # max_rounds rounds were played


def dest_action(row: int, col: int) -> int:
    """Action id of ending a human's move on ``(row, col)`` (0..20 each).

    Raises:
        ValueError: if the square is off the map.
    """
    if not (0 <= row < MAP and 0 <= col < MAP):
        raise ValueError(f"square ({row}, {col}) is off the {MAP}x{MAP} map")
    return DEST_OFFSET + row * MAP + col


def action_name(action: int) -> str:
    """Readable name of an action id (``"move to (3, 4)"``, ``"ghost slide left"``...).

    Raises:
        ValueError: for an id outside ``0..NUM_ACTIONS-1``.
    """
    a = int(action)
    if a == ITEM_NONE:
        return "roll (no item)"
    if a == ITEM_DOUBLE:
        return "use Double Dice"
    if a == ITEM_MOVE7:
        return "use Move 7"
    if DEST_OFFSET <= a < CROSS_NO:
        r, c = divmod(a - DEST_OFFSET, MAP)
        return f"move to ({r}, {c})"
    if a == CROSS_NO:
        return "no Cross"
    if a == CROSS_YES:
        return "use a Cross"
    if SLIDE_OFFSET <= a < PASS_OFFSET:
        return f"ghost slide {DIR_NAMES[a - SLIDE_OFFSET]}"
    if PASS_OFFSET <= a < CHIP_OFFSET:
        return f"ghost wall pass {DIR_NAMES[a - PASS_OFFSET]}"
    if CHIP_OFFSET <= a < NUM_ACTIONS:
        return f"item chip on place {a - CHIP_OFFSET}"
    raise ValueError(f"action {a} is out of range 0..{NUM_ACTIONS - 1}")


@dataclass(frozen=True)
class Options:
    """Validated options of one game of Exit Now.

    Args:
        num_humans: 1..5 human players (plus the ghost player).
        layout: ``"default"`` (Entrance and Tower/Graveyard in opposite corners, the
            centre piece between them), ``"random"`` (drawn from the episode's seed at
            every reset) or a layout index 0..575 (see :func:`exitnow_envs.layouts`).
        centre_side: 0 or 1 (the centre piece's side) or ``"random"``.
        centre_rotation: 0..3 quarter turns clockwise or ``"random"``.
        team: False (individual win: only the escaping human wins) or True (every human
            wins when one escapes).
        max_rounds: rounds after which the ghost wins, 1..1000.
        boards: ``None`` (the shipped boards) or a :class:`exitnow_envs.maps.BoardSet`.

    Raises:
        ValueError: for any value outside the ranges above (naming the option).
    """

    num_humans: int = option(
        3,
        "number of human players (plus the ghost player)",
        low=MIN_HUMANS,
        high=MAX_HUMANS,
        flag="--humans",
        aliases=("--players",),
    )
    layout: object = option(
        "default",
        "map layout: an index, 'default' or 'random' (drawn at every reset)",
        type=int,
        low=0,
        high=NUM_LAYOUTS - 1,
        words=("default", "random"),
    )
    centre_side: object = option(0, "side of the centre piece", type=int, choices=(0, 1), words=("random",))
    centre_rotation: object = option(
        0, "quarter turns clockwise of the centre piece", type=int, low=0, high=3, words=("random",)
    )
    team: bool = option(False, "every human wins when one escapes")
    max_rounds: int = option(
        DEFAULT_MAX_ROUNDS, "rounds after which the ghost wins", low=1, high=MAX_MAX_ROUNDS
    )
    boards: object = option(None, "a exitnow_envs.maps.BoardSet (Python only)", type=object, cli=False)

    def __post_init__(self):
        check_options(self)  # each option against its declaration above
        if self.boards is not None and not isinstance(self.boards, BoardSet):
            raise ValueError(
                f"boards must be None or an exitnow_envs.maps.BoardSet, got {type(self.boards).__name__}"
            )

    @property
    def num_seats(self) -> int:
        return self.num_humans + 1
