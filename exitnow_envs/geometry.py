"""Exit Now map geometry and square kinds: the constants the board files and the map
builder (``maps.py``) read.

They sit below ``spec.py`` (which re-exports every name) so that ``spec`` can check an
``Options.boards`` :class:`~exitnow_envs.maps.BoardSet` while ``maps`` reads the geometry,
without the two modules importing each other.
"""

from __future__ import annotations

__all__ = [
    "BOARD",
    "MAP",
    "NUM_SQUARES",
    "NUM_PLACES",
    "NUM_LAYOUTS",
    "BIT_ROWS",
    "FLOOR",
    "WALL",
    "WATER",
    "EXIT",
    "PLACE",
    "DOOR_A",
    "DOOR_B",
    "DOOR_C",
    "START",
    "RESTART",
    "GHOST_START",
    "SEALED_A",
    "SEALED_B",
    "SEALED_C",
    "NUM_KINDS",
    "CHAR_KIND",
    "KIND_CHAR",
]

# --- Map geometry -----------------------------------------------------------------------
BOARD = 7  # squares per board side
MAP = 3 * BOARD  # 21 squares per map side
NUM_SQUARES = MAP * MAP  # 441
NUM_PLACES = 17  # event-chip places (one per event card)
NUM_LAYOUTS = 576  # 4! corner orders x 4! edge orders
# Bit boards (State.wbits ...): map row r is the uint32 word r + 1 (bit c = column c); the
# words 0, 22 and 23 stay 0, so a step up or down never leaves the array.
BIT_ROWS = MAP + 3

# --- Square kinds (State.cell) -------------------------------------------------------------
FLOOR = 0
WALL = 1
WATER = 2
EXIT = 3
PLACE = 4  # event-chip place (the chip itself is in State.chip)
DOOR_A = 5  # door places A, B, C (floor until sealed)
DOOR_B = 6
DOOR_C = 7
START = 8  # human start
RESTART = 9  # human restart
GHOST_START = 10
SEALED_A = 11  # sealed doors A, B, C (walls; a Pickaxe destroys them)
SEALED_B = 12
SEALED_C = 13
NUM_KINDS = 14

# Board-file characters -> square kinds (the legend of docs/rules/exitnow.md).
CHAR_KIND = {
    ".": FLOOR,
    "#": WALL,
    "~": WATER,
    "E": EXIT,
    "?": PLACE,
    "A": DOOR_A,
    "B": DOOR_B,
    "C": DOOR_C,
    "S": START,
    "R": RESTART,
    "G": GHOST_START,
}
KIND_CHAR = {v: k for k, v in CHAR_KIND.items()}
