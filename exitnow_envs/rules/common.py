"""Exit Now rules, shared part: constants, engine stages and the small square/piece helpers."""

from __future__ import annotations

import numpy as np

from tabletop_core.kernel.jit import kernel
from tabletop_core.kernel.rng import randint_word

from ..spec import (
    BOARD,
    DECK,
    EXIT,
    MAP,
    MAX_GHOSTS,
    NO_CHIP,
    SEALED_A,
    SEALED_C,
    WALL,
    WATER,
    Phase,
    Status,
)

DR = np.array([-1, 0, 1, 0], np.int64)  # row step of each direction (DIR_NAMES order)
DC = np.array([0, 1, 0, -1], np.int64)  # column step of each direction
_DECK = np.array(DECK, np.int8)
_CORNER_BR = np.array([0, 0, 2, 2], np.int64)
_CORNER_BC = np.array([0, 2, 2, 0], np.int64)
_EDGE_BR = np.array([0, 1, 2, 1], np.int64)
_EDGE_BC = np.array([1, 2, 1, 0], np.int64)
_B2 = BOARD * BOARD  # squares of one board (a stack scratch size)

# engine stages (State.stage)
ST_TURN = 0  # start the turn of State.turn_seat
ST_GHOST = 1  # the ghost player's turn: ghost State.ghost_idx rolls or moves next
ST_ROUND_END = 2  # the ghost player's turn is over: next round

_PLAYING = int(Status.PLAYING)
_HUMAN_WIN = int(Status.HUMAN_WIN)
_GHOST_WIN = int(Status.GHOST_WIN)
_P_ITEM = int(Phase.ITEM)
_P_MOVE = int(Phase.MOVE)
_P_CROSS = int(Phase.CROSS)
_P_GHOST = int(Phase.GHOST)
_P_CHIP = int(Phase.CHIP)
_P_OVER = int(Phase.OVER)


# --- small helpers ------------------------------------------------------------------------
@kernel
def randint_r(e, n):
    """Uniform int64 in ``[0, n)`` from the record's generator word ``e.rng`` (advanced):
    the number ``tabletop_core.kernel.rng.randint(s.rng, i, n)`` draws."""
    w, x = randint_word(e.rng, n)
    e.rng = w
    return x


#: The sides of the die every player rolls.
DIE_SIDES = 6


@kernel
def die_r(e):
    """One die roll 1..DIE_SIDES from the env's generator."""
    return randint_r(e, DIE_SIDES) + 1


@kernel(inline="always")
def ghost_moves_for_roll(roll):
    """A ghost's moves for a die roll: half the roll, rounded up (rules, "The ghost
    player's turn")."""
    return (roll + 1) // 2


@kernel
def in_map(r, c):
    """Whether (r, c) is on the 21x21 map."""
    return r >= 0 and r < MAP and c >= 0 and c < MAP


@kernel
def rot_local(r, c, k):
    """Board square (r, c) (0..6) after ``k`` quarter turns clockwise: (r, c) -> (c, 6 - r)."""
    for _ in range(k % 4):
        t = r
        r = c
        c = BOARD - 1 - t
    return r, c


@kernel
def find_kind_r(e, kind):
    """First square (reading order) of the landmark square kind ``kind`` (EXIT or any kind
    after PLACE: doors, start squares, sealed doors), or (-1, -1) (``State.kpos``)."""
    return np.int64(e.kpos[kind, 0]), np.int64(e.kpos[kind, 1])


@kernel
def ghost_at_r(e, r, c):
    """Lowest-numbered ghost on (r, c), or -1."""
    for g in range(MAX_GHOSTS):
        if e.gon[g] != 0 and e.gpos[g, 0] == r and e.gpos[g, 1] == c:
            return g
    return -1


@kernel
def humans_at_r(e, r, c):
    """Number of human pieces on (r, c)."""
    n = 0
    for h in range(e.cfg_humans):
        if e.hpos[h, 0] == r and e.hpos[h, 1] == c:
            n += 1
    return n


@kernel
def is_sealed(kind):
    """Whether a square kind is a sealed door."""
    return kind >= SEALED_A and kind <= SEALED_C


@kernel
def human_never_walks(kind):
    """Whether no human may ever enter a square of this kind: walls and water (rules "A
    human's turn" 3; water is for ghosts only)."""
    return kind in (WALL, WATER)


@kernel
def human_walkable(kind):
    """Whether a human may walk over a square of this kind holding no item (rules "A
    human's turn" 3): floor, start and restart squares, open door places, event-chip
    places. Not walls, water, sealed doors (a Pickaxe ends a move there) nor the exit door
    (an Exit Key ends a move there)."""
    return not (human_never_walks(kind) or kind == EXIT or is_sealed(kind))


@kernel
def ghost_free_r(e, r, c):
    """Whether a ghost may move onto (r, c): on the map and not a wall, sealed door, exit
    door, event chip or item chip (water, open door places, other ghosts are free)."""
    if not in_map(r, c):
        return False
    k = e.cell[r, c]
    if k in (WALL, EXIT) or is_sealed(k):
        return False
    return e.chip[r, c] == NO_CHIP


@kernel
def _on_top_r(e, h):
    """Human ``h`` goes on top of the pieces of its square (stacking order)."""
    e.height_counter += 1
    e.hheight[h] = e.height_counter
