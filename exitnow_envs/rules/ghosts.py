"""Exit Now rules: ghost moves, captures and contact."""

from __future__ import annotations

import numpy as np

from tabletop_core.kernel.jit import kernel

from ..spec import (
    ITEM_CHIP,
    MAX_GHOSTS,
    NO_CHIP,
    NUM_ITEM_KINDS,
    NUM_PLACES,
    PASS_OFFSET,
    SLIDE_OFFSET,
    WALL,
)
from .common import (
    DC,
    DR,
    ghost_at_r,
    ghost_free_r,
    humans_at_r,
    in_map,
    is_sealed,
)


# --- ghost moves ------------------------------------------------------------------------------
@kernel
def ghost_moves_r(e):
    """Legal moves of the acting ghost as a bitmask: bit d slide in direction d, bit 4 + d
    wall pass in direction d. A slide needs a free first square; a wall pass needs a wall
    (or sealed door) next, a free square beyond it and two moves left. The straight
    reversal of the previous move is removed unless nothing else is possible. Rules
    "The ghost player's turn"."""
    g = e.ghost_idx
    r = np.int64(e.gpos[g, 0])
    c = np.int64(e.gpos[g, 1])
    raw = 0
    for d in range(4):
        r1 = r + DR[d]
        c1 = c + DC[d]
        if not in_map(r1, c1):
            continue
        if ghost_free_r(e, r1, c1):
            raw |= 1 << d
        elif e.moves_left >= 2:
            k = e.cell[r1, c1]
            if (k == WALL or is_sealed(k)) and ghost_free_r(e, r1 + DR[d], c1 + DC[d]):
                raw |= 1 << (4 + d)
    if e.last_dir >= 0:
        back = (e.last_dir + 2) % 4
        m = raw & ~((1 << back) | (1 << (4 + back)))
        if m != 0:
            return m
    return raw


@kernel
def ghost_landing_r(e, g, action):
    """Where ghost ``g`` lands with the move ``action`` (a slide ``SLIDE_OFFSET + d`` or a
    wall pass ``PASS_OFFSET + d``, legal for it: :func:`ghost_moves_r`) and whether it
    lands on a human: ``(row, col, catches)``, int64, int64, bool. A slide goes on while
    the next square is free for a ghost (:func:`ghost_free_r`) and stops on the first
    square holding a human; a wall pass lands two squares on. Rules "The ghost player's
    turn" (one move); the State is not changed."""
    r = np.int64(e.gpos[g, 0])
    c = np.int64(e.gpos[g, 1])
    if action < PASS_OFFSET:
        d = action - SLIDE_OFFSET
        while ghost_free_r(e, r + DR[d], c + DC[d]):
            r += DR[d]
            c += DC[d]
            if humans_at_r(e, r, c) > 0:
                return r, c, True
        return r, c, False
    d = action - PASS_OFFSET
    r += 2 * DR[d]
    c += 2 * DC[d]
    return r, c, humans_at_r(e, r, c) > 0


# --- captures, contact ----------------------------------------------------------------------
@kernel
def start_contact_r(e, g):
    """Ghost ``g`` and the humans on its square meet: queue them top first for the Cross
    question (:func:`proceed_r` asks them). Does nothing when no human is there."""
    r = e.gpos[g, 0]
    c = e.gpos[g, 1]
    n = 0
    for h in range(e.cfg_humans):
        if e.hpos[h, 0] == r and e.hpos[h, 1] == c:
            # insert by height, highest first
            j = n
            while j > 0 and e.hheight[e.contact_q[j - 1]] < e.hheight[h]:
                e.contact_q[j] = e.contact_q[j - 1]
                j -= 1
            e.contact_q[j] = h
            n += 1
    if n > 0:
        e.contact_ghost = g
        e.contact_n = n
        e.contact_k = 0


@kernel
def capture_square_r(e, r, c):
    """Capture every human on (r, c): off the map, items to the confiscated pile; flag the
    item-chip placement. Rules "Capture"."""
    for h in range(e.cfg_humans):
        if e.hpos[h, 0] == r and e.hpos[h, 1] == c:
            e.captured[h] = 1
            e.hpos[h, 0] = -1
            e.hpos[h, 1] = -1
            e.skip[h] = 0
            for k in range(NUM_ITEM_KINDS):
                e.confiscated[k] += e.items[h, k]
                e.items[h, k] = 0
            e.pending_chip = 1


@kernel
def chip_place_ok_r(e, r, c):
    """Whether the item chip may go on (r, c): an event-chip place without chip or piece."""
    return (
        e.place[r, c] >= 0
        and e.chip[r, c] == NO_CHIP
        and humans_at_r(e, r, c) == 0
        and ghost_at_r(e, r, c) < 0
    )


@kernel
def chip_places_r(e):
    """Bitmask of the places p (bit p) where the item chip may go now (:func:`chip_place_ok_r`)."""
    m = 0
    for p in range(NUM_PLACES):
        r = np.int64(e.ppos[p, 0])
        if r >= 0 and chip_place_ok_r(e, r, e.ppos[p, 1]):
            m |= 1 << p
    return m


@kernel
def can_place_item_chip_r(e):
    """Whether the ghost player gets to place the item chip now (see module docstring)."""
    total = 0
    for k in range(NUM_ITEM_KINDS):
        total += e.confiscated[k]
    if total == 0:
        return False
    for p in range(NUM_PLACES):  # the item chip only ever lies on a place
        if e.ppos[p, 0] >= 0 and e.chip[e.ppos[p, 0], e.ppos[p, 1]] == ITEM_CHIP:
            return False
    return chip_places_r(e) != 0


@kernel
def _place_ghost_r(e, g, r, c):
    """Ghost ``g`` goes on the map at (r, c)."""
    e.gon[g] = 1
    e.gpos[g, 0] = r
    e.gpos[g, 1] = c


@kernel
def _free_ghost_r(e):
    """Lowest ghost number not on the map, or -1."""
    for g in range(MAX_GHOSTS):
        if e.gon[g] == 0:
            return g
    return -1
