"""Exit Now's State: a NumPy structured array of shape ``(B,)``, one record per env.

The AEC env holds a batch of one, the vector env a batch of ``num_envs``; the same kernels
(``rules.py``) run on both. Options and the board data live in the record (``cfg_*``), so
one record fully describes its game (and a random layout can be built from the episode's
own generator at reset). Squares are ``(row, col)`` on the 21x21 map, row 0 at the top.

The fields after ``place`` up to ``chipv`` are derived from ``cell``, ``chip`` and
``place`` (bit boards and positions the per-step kernels read instead of scanning the map,
and version counters of the map and the chips). Every rules kernel keeps them up to date;
after editing ``cell``, ``chip`` or ``place`` by hand, call
:func:`exitnow_envs.rules.sync_map`. The ``ob_*`` fields at the end are no game state:
they note what :func:`exitnow_envs.observe.refresh_observation` last wrote for the env.
"""

from __future__ import annotations

import numpy as np

from tabletop_core.rng import seed_word

from .maps import default_boards
from .spec import (
    BIT_ROWS,
    BOARD,
    DECK_SIZE,
    MAP,
    MAX_GHOSTS,
    MAX_HUMANS,
    NUM_ITEM_KINDS,
    NUM_KINDS,
    NUM_PLACES,
    Options,
)

STATE_DTYPE = np.dtype(
    [
        # options (constant during a game)
        ("cfg_humans", np.int8),  # number of human seats, 1..5 (the ghost player is seat cfg_humans)
        ("cfg_team", np.uint8),  # 1: team win (every human wins when one escapes)
        ("cfg_max_rounds", np.int16),  # the ghost wins once this many rounds are over
        ("cfg_layout", np.int16),  # layout index 0..575, or -1: drawn at reset from the env's generator
        ("cfg_centre_side", np.int8),  # centre piece side 0/1, or -1: drawn at reset
        ("cfg_centre_rot", np.int8),  # centre quarter turns clockwise 0..3, or -1: drawn at reset
        ("cfg_corner", np.uint8, (4, BOARD, BOARD)),  # corner boards (spec square kinds), top-left drawing
        ("cfg_edge", np.uint8, (4, BOARD, BOARD)),  # edge boards, top-edge drawing
        ("cfg_centre", np.uint8, (2, BOARD, BOARD)),  # centre piece sides
        # map
        ("layout", np.int16),  # layout index in play
        (
            "slot_board",
            np.int8,
            (9,),
        ),  # board in slot 3*block_row+block_col (index in its kind; centre: side)
        ("slot_rot", np.int8, (9,)),  # quarter turns clockwise of the board in that slot
        ("cell", np.uint8, (MAP, MAP)),  # square kind (spec.FLOOR ... spec.SEALED_C)
        ("chip", np.uint8, (MAP, MAP)),  # 0 none, 1 event chip, 2 item chip
        ("place", np.int8, (MAP, MAP)),  # event-chip place number 0..16, -1 elsewhere (moves with its square)
        # derived from cell / chip / place (rules.sync_map); bit boards (spec.BIT_ROWS) of:
        # wbits squares a walking human may enter (not wall, water, exit, sealed door),
        # xbits the exit door, sbits sealed doors, cbits squares holding a chip
        ("wbits", np.uint32, (BIT_ROWS,)),
        ("xbits", np.uint32, (BIT_ROWS,)),
        ("sbits", np.uint32, (BIT_ROWS,)),
        ("cbits", np.uint32, (BIT_ROWS,)),
        # first square (reading order) of each landmark kind (EXIT, DOOR_A ... SEALED_C),
        # (-1, -1) when absent and for FLOOR, WALL, WATER, PLACE
        ("kpos", np.int8, (NUM_KINDS, 2)),
        ("ppos", np.int8, (NUM_PLACES, 2)),  # square of event-chip place p, (-1, -1) none
        ("mapv", np.uint32),  # map version: + 1 whenever cell or place change (rules.sync_map)
        ("chipv", np.uint32),  # chip version: + 1 whenever a chip is taken or put (and with mapv)
        # humans (seat h = human_h)
        ("hpos", np.int8, (MAX_HUMANS, 2)),  # (row, col) on the map, (-1, -1) off the map
        ("hheight", np.int16, (MAX_HUMANS,)),  # stacking order: larger = higher on a shared square
        ("entered", np.uint8, (MAX_HUMANS,)),  # 1 once the piece has entered at the start square
        ("captured", np.uint8, (MAX_HUMANS,)),  # 1 while captured (off the map, rolling for a 6)
        ("skip", np.uint8, (MAX_HUMANS,)),  # 1: loses its next turn (stacked on)
        ("items", np.int8, (MAX_HUMANS, NUM_ITEM_KINDS)),  # held items by kind (spec.I_KEY ...)
        # ghosts (ghost g = ghost number g + 1)
        ("gpos", np.int8, (MAX_GHOSTS, 2)),  # (row, col), (-1, -1) off the map
        ("gon", np.uint8, (MAX_GHOSTS,)),  # 1: on the map
        # cards
        ("deck", np.int8, (DECK_SIZE,)),  # shuffled event cards; the bottom card is deck[deck_n - 1]
        ("deck_n", np.int8),  # cards left in the event deck
        ("confiscated", np.int8, (NUM_ITEM_KINDS,)),  # confiscated pile by item kind (hidden)
        ("used", np.int8, (NUM_ITEM_KINDS,)),  # used pile by item kind (public)
        ("last_card", np.int8),  # last action card resolved (public), -1 none
        # turn machine
        ("phase", np.int8),  # spec.Phase of the pending decision
        ("stage", np.int8),  # rules.ST_*: what the engine does once no contact / chip is pending
        ("turn_seat", np.int8),  # seat whose turn it is (cfg_humans = the ghost player)
        ("roll", np.int8),  # human: squares to move; ghost: the acting ghost's die
        ("ghost_idx", np.int8),  # acting ghost 0..2 during the ghost player's turn
        ("ghost_rolled", np.uint8),  # 1 once the acting ghost has rolled
        ("moves_left", np.int8),  # the acting ghost's moves left
        ("last_dir", np.int8),  # the acting ghost's previous move direction this turn, -1 none
        ("contact_ghost", np.int8),  # ghost of the pending contact, -1 none
        ("contact_q", np.int8, (MAX_HUMANS,)),  # humans on the contact square, top first
        ("contact_n", np.int8),  # humans in contact_q (0: no pending contact)
        ("contact_k", np.int8),  # next human of contact_q to ask for a Cross
        ("pending_chip", np.uint8),  # 1: a capture may let the ghost player place the item chip
        ("height_counter", np.int16),  # last stacking height handed out
        ("round", np.int16),  # rounds completed
        ("winner", np.int8),  # seat of the escaping human, -1 none
        ("current", np.int8),  # seat to act
        ("status", np.int8),  # spec.Status: 0 playing, 1 a human escaped, 2 the ghost won
        ("rng", np.uint64),  # SplitMix64 word (tabletop_core.rng)
        # what observe.refresh_observation last wrote for this env (see there); not game state.
        # Two notes: [0] the observation buffer (obs), [1] the final-observation buffer
        # (final_obs, written when an episode ends)
        ("ob_addr", np.uint64, (2,)),  # address of that observation row, 0 none
        ("ob_mapv", np.uint32, (2,)),  # mapv / chipv it showed
        ("ob_chipv", np.uint32, (2,)),
        ("ob_hpos", np.int8, (2, MAX_HUMANS, 2)),  # human squares it showed, (-1, -1) none
        ("ob_gpos", np.int8, (2, MAX_GHOSTS, 2)),  # ghost squares it showed, (-1, -1) none
        ("ob_sq", np.uint8, (2, MAP, MAP)),  # per square: cell | chip << 4 | (place >= 0) << 6 it showed
    ]
)


def new_state(batch: int, options: Options) -> np.ndarray:
    """Allocate a ``(batch,)`` State configured by ``options``, not yet dealt.

    Raises:
        ValueError: if ``batch`` < 1.
    """
    b = int(batch)
    if b < 1:
        raise ValueError(f"batch must be >= 1, got {batch}")
    boards = options.boards or default_boards()
    corners, edges, centre = boards.arrays()
    s = np.zeros(b, STATE_DTYPE)
    s["cfg_humans"] = options.num_humans
    s["cfg_team"] = int(bool(options.team))
    s["cfg_max_rounds"] = options.max_rounds
    if options.layout == "default":
        s["cfg_layout"] = boards.default_layout()
    elif options.layout == "random":
        s["cfg_layout"] = -1
    else:
        s["cfg_layout"] = options.layout
    s["cfg_centre_side"] = -1 if options.centre_side == "random" else options.centre_side
    s["cfg_centre_rot"] = -1 if options.centre_rotation == "random" else options.centre_rotation
    s["cfg_corner"] = corners
    s["cfg_edge"] = edges
    s["cfg_centre"] = centre
    s["hpos"] = -1
    s["gpos"] = -1
    s["kpos"] = -1
    s["ppos"] = -1
    s["winner"] = -1
    s["contact_ghost"] = -1
    s["last_dir"] = -1
    s["last_card"] = -1
    s["phase"] = 5
    s["rng"] = seed_word(0)
    return s


def state_nbytes() -> int:
    """Bytes of state per env."""
    return STATE_DTYPE.itemsize
