"""Exit Now rules: event cards and chips."""

from __future__ import annotations

import numpy as np

from tabletop_core.kernel.jit import kernel

from ..spec import (
    ADD_GHOST,
    CENTRE_ROTATION,
    DOOR_A,
    FIRST_ITEM,
    GHOST_START,
    MAP_SWAP,
    MAX_GHOSTS,
    SEAL_A,
    SEAL_C,
    SEALED_A,
)
from .common import (
    find_kind_r,
    ghost_at_r,
    randint_r,
)
from .ghosts import (
    _free_ghost_r,
    _place_ghost_r,
    capture_square_r,
    start_contact_r,
)
from .map import (
    centre_rotation_r,
    map_swap_r,
    sync_map_r,
)


# --- events -------------------------------------------------------------------------------------
@kernel
def seal_door_r(e, letter):
    """Seal door ``letter`` (0 A, 1 B, 2 C): the place becomes a wall, a human on it dies
    (captured), a ghost on it returns to the ghost start. Rules "Seal Door X"."""
    r, c = find_kind_r(e, DOOR_A + letter)
    if r < 0:
        return
    e.cell[r, c] = SEALED_A + letter
    sync_map_r(e)
    capture_square_r(e, r, c)
    gr, gc = find_kind_r(e, GHOST_START)
    moved = False
    for g in range(MAX_GHOSTS):
        if e.gon[g] != 0 and e.gpos[g, 0] == r and e.gpos[g, 1] == c:
            e.gpos[g, 0] = gr
            e.gpos[g, 1] = gc
            moved = True
    if moved:
        g0 = ghost_at_r(e, gr, gc)
        start_contact_r(e, g0)


@kernel
def add_ghost_r(e):
    """Add Ghost: the lowest free ghost number appears on the ghost start (nothing if three
    are out); contact with humans standing there."""
    g = _free_ghost_r(e)
    if g < 0:
        return
    r, c = find_kind_r(e, GHOST_START)
    _place_ghost_r(e, g, r, c)
    start_contact_r(e, g)


@kernel
def draw_event_r(e, h):
    """Human ``h`` draws the bottom card of the event deck: keeps an item, resolves an
    action at once. Rules "A human's turn" 8."""
    if e.deck_n <= 0:
        return
    e.deck_n -= 1
    card = np.int64(e.deck[e.deck_n])
    if card >= FIRST_ITEM:
        e.items[h, card - FIRST_ITEM] += 1
        return
    e.last_card = card
    if card == ADD_GHOST:
        add_ghost_r(e)
    elif card >= SEAL_A and card <= SEAL_C:
        seal_door_r(e, card - SEAL_A)
    elif card == MAP_SWAP:
        kind = randint_r(e, 2)
        a = randint_r(e, 4)
        b = randint_r(e, 3)
        if b >= a:
            b += 1
        map_swap_r(e, kind, a, b)
    elif card == CENTRE_ROTATION:
        centre_rotation_r(e)
