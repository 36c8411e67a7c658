"""Exit Now's observation: named pieces in one flat float32 vector, from any seat's view.

Pieces (in buffer order; the layout is the same for every player count, seats beyond
``num_humans`` read 0)::

    planes          (18, 21, 21)  map planes, channels PLANE_NAMES (below)
    seat            (6,)   one-hot of the observing seat (humans 0..4, ghost player 5)
    current         (6,)   one-hot of the acting seat (all 0 once the game is over)
    items           (5,)   the observer's own items by kind (key, cross, double dice,
                           move 7, pickaxe); zeros for the ghost player
    item_counts     (5,)   items held by each human (public counts)
    roll            ()     the pending move length (human; 0 before rolling) or the acting ghost's die
    phase           (6,)   one-hot spec.Phase
    round           ()     rounds completed
    rounds_left     ()     max_rounds - round
    captured        (5,)   1 if that human is captured
    skip            (5,)   1 if that human loses its next turn
    entered         (5,)   1 once that human has entered the map
    deck_size       ()     event cards left
    used            (5,)   used pile by item kind (public: items are declared when used)
    confiscated     ()     number of cards in the confiscated pile (its kinds are hidden)
    moves_left      ()     the acting ghost's moves left
    acting_ghost    (3,)   one-hot of the acting ghost during the ghost player's turn
    last_dir        (4,)   one-hot of that ghost's previous move this turn
    ghost_rolled    ()     1 once the acting ghost has rolled
    team            ()     1 with the team option

Plane channels: wall, water, exit, door_a, door_b, door_c (door places, open or
sealed), sealed_door, chip_place, event_chip, item_chip, human_start, human_restart,
ghost_start, own_piece, other_humans (number of other humans on the square),
ghost_1, ghost_2, ghost_3.

Never another human's item kinds, the event deck's order or the confiscated pile's
contents (tested).

The writers are ``*_r`` kernels taking the env's record ``e = s[i]`` and the whole
``(B, D)`` buffer with the row index (see ``rules``: neither the State nor a row view is
passed down, which numba would reference-count); :func:`observe` and
:func:`refresh_observation` keep their ``(s, i, seat, out (D,))`` form as thin wrappers.
"""

from __future__ import annotations

import numpy as np

from tabletop_core.encoders import ObservationLayout
from tabletop_core.jit import kernel

from .spec import (
    DOOR_A,
    DOOR_B,
    DOOR_C,
    EVENT_CHIP,
    EXIT,
    GHOST_START,
    ITEM_CHIP,
    MAP,
    MAX_GHOSTS,
    MAX_HUMANS,
    MAX_SEATS,
    NUM_ITEM_KINDS,
    NUM_PHASES,
    RESTART,
    SEALED_A,
    SEALED_B,
    SEALED_C,
    START,
    WALL,
    WATER,
)

PLANE_NAMES = (
    "wall",
    "water",
    "exit",
    "door_a",
    "door_b",
    "door_c",
    "sealed_door",
    "chip_place",
    "event_chip",
    "item_chip",
    "human_start",
    "human_restart",
    "ghost_start",
    "own_piece",
    "other_humans",
    "ghost_1",
    "ghost_2",
    "ghost_3",
)
NUM_PLANES = len(PLANE_NAMES)
CH = {name: k for k, name in enumerate(PLANE_NAMES)}

PIECES = [
    ("planes", (NUM_PLANES, MAP, MAP)),
    ("seat", (MAX_SEATS,)),
    ("current", (MAX_SEATS,)),
    ("items", (NUM_ITEM_KINDS,)),
    ("item_counts", (MAX_HUMANS,)),
    ("roll", ()),
    ("phase", (NUM_PHASES,)),
    ("round", ()),
    ("rounds_left", ()),
    ("captured", (MAX_HUMANS,)),
    ("skip", (MAX_HUMANS,)),
    ("entered", (MAX_HUMANS,)),
    ("deck_size", ()),
    ("used", (NUM_ITEM_KINDS,)),
    ("confiscated", ()),
    ("moves_left", ()),
    ("acting_ghost", (MAX_GHOSTS,)),
    ("last_dir", (4,)),
    ("ghost_rolled", ()),
    ("team", ()),
]
LAYOUT = ObservationLayout(PIECES)
OBS_DIM = LAYOUT.dim
_SQ = MAP * MAP
O_PLANES = LAYOUT.offset["planes"]
O_SEAT = LAYOUT.offset["seat"]
O_CURRENT = LAYOUT.offset["current"]
O_ITEMS = LAYOUT.offset["items"]
O_COUNTS = LAYOUT.offset["item_counts"]
O_ROLL = LAYOUT.offset["roll"]
O_PHASE = LAYOUT.offset["phase"]
O_ROUND = LAYOUT.offset["round"]
O_LEFT = LAYOUT.offset["rounds_left"]
O_CAPT = LAYOUT.offset["captured"]
O_SKIP = LAYOUT.offset["skip"]
O_ENTERED = LAYOUT.offset["entered"]
O_DECK = LAYOUT.offset["deck_size"]
O_USED = LAYOUT.offset["used"]
O_CONF = LAYOUT.offset["confiscated"]
O_MOVES = LAYOUT.offset["moves_left"]
O_AGHOST = LAYOUT.offset["acting_ghost"]
O_LASTDIR = LAYOUT.offset["last_dir"]
O_ROLLED = LAYOUT.offset["ghost_rolled"]
O_TEAM = LAYOUT.offset["team"]
_C_WALL = O_PLANES + CH["wall"] * _SQ
_C_WATER = O_PLANES + CH["water"] * _SQ
_C_EXIT = O_PLANES + CH["exit"] * _SQ
_C_DOOR_A = O_PLANES + CH["door_a"] * _SQ
_C_SEALED = O_PLANES + CH["sealed_door"] * _SQ
_C_PLACE = O_PLANES + CH["chip_place"] * _SQ
_C_EVENT = O_PLANES + CH["event_chip"] * _SQ
_C_ITEMCHIP = O_PLANES + CH["item_chip"] * _SQ
_C_START = O_PLANES + CH["human_start"] * _SQ
_C_RESTART = O_PLANES + CH["human_restart"] * _SQ
_C_GSTART = O_PLANES + CH["ghost_start"] * _SQ
_C_OWN = O_PLANES + CH["own_piece"] * _SQ
_C_OTHERS = O_PLANES + CH["other_humans"] * _SQ
_C_GHOST = O_PLANES + CH["ghost_1"] * _SQ
# observe() writes the map planes one by one, then zeroes everything from own_piece on
assert PLANE_NAMES[CH["own_piece"] :] == ("own_piece", "other_humans", "ghost_1", "ghost_2", "ghost_3")
assert O_PLANES == 0 and LAYOUT.offset["seat"] == O_PLANES + NUM_PLANES * _SQ


def observation_layout(options=None) -> ObservationLayout:
    """The :class:`ObservationLayout` (the same for every option)."""
    return LAYOUT


@kernel
def _map_planes_r(e, out, row):
    """The planes wall .. ghost_start (everything drawn from cell, chip and place) into row
    ``row`` of ``out``, each by a branch-free loop over the squares."""
    cell = e.cell.reshape(_SQ)
    chip = e.chip.reshape(_SQ)
    place = e.place.reshape(_SQ)
    for q in range(_SQ):
        out[row, _C_WALL + q] = cell[q] == WALL
    for q in range(_SQ):
        out[row, _C_WATER + q] = cell[q] == WATER
    for q in range(_SQ):
        out[row, _C_EXIT + q] = cell[q] == EXIT
    for q in range(_SQ):
        out[row, _C_DOOR_A + q] = (cell[q] == DOOR_A) | (cell[q] == SEALED_A)
    for q in range(_SQ):
        out[row, _C_DOOR_A + _SQ + q] = (cell[q] == DOOR_B) | (cell[q] == SEALED_B)
    for q in range(_SQ):
        out[row, _C_DOOR_A + 2 * _SQ + q] = (cell[q] == DOOR_C) | (cell[q] == SEALED_C)
    for q in range(_SQ):
        out[row, _C_SEALED + q] = (cell[q] >= SEALED_A) & (cell[q] <= SEALED_C)
    for q in range(_SQ):
        out[row, _C_PLACE + q] = place[q] >= 0
    for q in range(_SQ):
        out[row, _C_EVENT + q] = chip[q] == EVENT_CHIP
    for q in range(_SQ):
        out[row, _C_ITEMCHIP + q] = chip[q] == ITEM_CHIP
    for q in range(_SQ):
        out[row, _C_START + q] = cell[q] == START
    for q in range(_SQ):
        out[row, _C_RESTART + q] = cell[q] == RESTART
    for q in range(_SQ):
        out[row, _C_GSTART + q] = cell[q] == GHOST_START


@kernel
def _pieces_and_scalars_r(e, seat, out, row):
    """The piece planes (own_piece ... ghost_3; their entries must be 0 where a piece
    stands) and every piece after the planes (their range must be 0), into row ``row``."""
    n = e.cfg_humans
    for h in range(n):
        if e.hpos[h, 0] >= 0:
            q = e.hpos[h, 0] * MAP + e.hpos[h, 1]
            if h == seat:
                out[row, _C_OWN + q] = 1.0
            else:
                out[row, _C_OTHERS + q] += 1.0
        total = 0
        for k in range(NUM_ITEM_KINDS):
            total += e.items[h, k]
        out[row, O_COUNTS + h] = total
        out[row, O_CAPT + h] = e.captured[h]
        out[row, O_SKIP + h] = e.skip[h]
        out[row, O_ENTERED + h] = e.entered[h]
    for g in range(MAX_GHOSTS):
        if e.gon[g] != 0:
            out[row, _C_GHOST + g * _SQ + e.gpos[g, 0] * MAP + e.gpos[g, 1]] = 1.0
    out[row, O_SEAT + (seat if seat < n else MAX_SEATS - 1)] = 1.0
    if e.status == 0:
        cur = e.current
        out[row, O_CURRENT + (cur if cur < n else MAX_SEATS - 1)] = 1.0
    if seat < n:
        for k in range(NUM_ITEM_KINDS):
            out[row, O_ITEMS + k] = e.items[seat, k]
    out[row, O_ROLL] = e.roll
    out[row, O_PHASE + e.phase] = 1.0
    out[row, O_ROUND] = e.round
    out[row, O_LEFT] = e.cfg_max_rounds - e.round
    out[row, O_DECK] = e.deck_n
    conf = 0
    for k in range(NUM_ITEM_KINDS):
        out[row, O_USED + k] = e.used[k]
        conf += e.confiscated[k]
    out[row, O_CONF] = conf
    if e.status == 0 and e.phase == 3:
        out[row, O_MOVES] = e.moves_left
        out[row, O_AGHOST + e.ghost_idx] = 1.0
        if e.last_dir >= 0:
            out[row, O_LASTDIR + e.last_dir] = 1.0
        out[row, O_ROLLED] = e.ghost_rolled
    out[row, O_TEAM] = e.cfg_team


@kernel
def observe_r(e, seat, out, row):
    """Write the env's observation from ``seat``'s view into row ``row`` of ``out``
    ((B, OBS_DIM) float32; the row index rather than a row view, which numba would
    reference-count).

    ``seat`` 0..num_humans-1 is a human, ``num_humans`` the ghost player. Every entry is
    written once (no zeroing pass before): the map planes, then zeros from own_piece to
    the end, then the pieces and the scalars. Changes nothing in the State."""
    _map_planes_r(e, out, row)
    for q in range(_C_OWN, OBS_DIM):
        out[row, q] = 0.0
    _pieces_and_scalars_r(e, seat, out, row)


@kernel
def observe(s, i, seat, out):
    """:func:`observe_r` of env ``i`` into ``out`` ((OBS_DIM,) float32)."""
    observe_r(s[i], seat, out[np.newaxis, :], 0)


@kernel
def _square_code(cell, chip, place):
    """What the map planes show of one square, in one byte: kind | chip << 4 | place << 6."""
    return np.uint8(cell | (chip << 4) | (np.uint8(place >= 0) << 6))


@kernel
def _row_address(out, row):
    """Address of row ``row`` of ``out`` (B, D) (uint64; the State's note ``ob_addr``)."""
    return np.uint64(out.ctypes.data) + np.uint64(row * out.strides[0])


@kernel
def _note_written_r(e, note, addr, full):
    """Remember in the State's note ``note`` (0: the observation buffer, 1: the
    final-observation buffer) what :func:`refresh_observation_r` left in the observation
    row at address ``addr`` (``full``: the map planes were all written)."""
    e.ob_addr[note] = addr
    e.ob_mapv[note] = e.mapv
    e.ob_chipv[note] = e.chipv
    for h in range(MAX_HUMANS):
        e.ob_hpos[note, h, 0] = e.hpos[h, 0] if h < e.cfg_humans else -1
        e.ob_hpos[note, h, 1] = e.hpos[h, 1]
    for g in range(MAX_GHOSTS):
        e.ob_gpos[note, g, 0] = e.gpos[g, 0] if e.gon[g] != 0 else -1
        e.ob_gpos[note, g, 1] = e.gpos[g, 1]
    if full:
        for r in range(MAP):
            for c in range(MAP):
                e.ob_sq[note, r, c] = _square_code(e.cell[r, c], e.chip[r, c], e.place[r, c])


@kernel
def _patch_map_planes_r(e, note, out, row):
    """Rewrite the map-plane entries (row ``row`` of ``out``) of the squares whose cell,
    chip or place changed since the State's note ``note`` (``ob_sq``): a branch-free pass
    per map row finds the rows with a change (usually one square of one row: a chip
    taken)."""
    for r in range(MAP):
        diff = np.uint8(0)
        for c in range(MAP):
            diff |= _square_code(e.cell[r, c], e.chip[r, c], e.place[r, c]) ^ e.ob_sq[note, r, c]
        if diff == 0:
            continue
        for c in range(MAP):
            code = _square_code(e.cell[r, c], e.chip[r, c], e.place[r, c])
            if code == e.ob_sq[note, r, c]:
                continue
            e.ob_sq[note, r, c] = code
            q = r * MAP + c
            k = e.cell[r, c]
            ch = e.chip[r, c]
            out[row, _C_WALL + q] = k == WALL
            out[row, _C_WATER + q] = k == WATER
            out[row, _C_EXIT + q] = k == EXIT
            out[row, _C_DOOR_A + q] = (k == DOOR_A) | (k == SEALED_A)
            out[row, _C_DOOR_A + _SQ + q] = (k == DOOR_B) | (k == SEALED_B)
            out[row, _C_DOOR_A + 2 * _SQ + q] = (k == DOOR_C) | (k == SEALED_C)
            out[row, _C_SEALED + q] = (k >= SEALED_A) & (k <= SEALED_C)
            out[row, _C_PLACE + q] = e.place[r, c] >= 0
            out[row, _C_EVENT + q] = ch == EVENT_CHIP
            out[row, _C_ITEMCHIP + q] = ch == ITEM_CHIP
            out[row, _C_START + q] = k == START
            out[row, _C_RESTART + q] = k == RESTART
            out[row, _C_GSTART + q] = k == GHOST_START


@kernel
def refresh_observation_r(e, seat, out, row, full, note):
    """Make row ``row`` of ``out`` ((B, OBS_DIM) float32) the env's observation from
    ``seat``'s view, as :func:`observe_r` writes it, touching only what changed when it
    can.

    The State's note ``note`` (``ob_*`` fields; note 0 is kept for the observation
    buffer, note 1 for the final-observation buffer) holds the address of the
    observation row this function last wrote with that note and what it wrote there.
    When that is row ``row`` of ``out`` (same address) and ``full`` is False, only the
    map-plane entries of the squares whose cell, chip or place changed (looked for when
    the map or chip version moved), the squares the pieces left and reached and the
    scalar pieces are rewritten: the row must hold exactly what the previous call wrote
    (the env's own buffer, never modified by its users). Otherwise (or with ``full``) the
    whole row is written."""
    addr = _row_address(out, row)
    if full or e.ob_addr[note] != addr:
        observe_r(e, seat, out, row)
        _note_written_r(e, note, addr, True)
        return
    if e.ob_mapv[note] != e.mapv or e.ob_chipv[note] != e.chipv:
        _patch_map_planes_r(e, note, out, row)
    for h in range(MAX_HUMANS):
        if e.ob_hpos[note, h, 0] >= 0:
            q = e.ob_hpos[note, h, 0] * MAP + e.ob_hpos[note, h, 1]
            out[row, _C_OWN + q] = 0.0
            out[row, _C_OTHERS + q] = 0.0
    for g in range(MAX_GHOSTS):
        if e.ob_gpos[note, g, 0] >= 0:
            out[row, _C_GHOST + g * _SQ + e.ob_gpos[note, g, 0] * MAP + e.ob_gpos[note, g, 1]] = 0.0
    for q in range(O_SEAT, OBS_DIM):
        out[row, q] = 0.0
    _pieces_and_scalars_r(e, seat, out, row)
    _note_written_r(e, note, addr, False)


@kernel
def refresh_observation(s, i, seat, out, full):
    """:func:`refresh_observation_r` of env ``i`` into ``out`` ((OBS_DIM,) float32; noted
    in note 0 by its address, as row 0 of ``out`` seen as (1, OBS_DIM))."""
    refresh_observation_r(s[i], seat, out[np.newaxis, :], 0, full, 0)


def decode_observation(vector: np.ndarray) -> dict[str, np.ndarray]:
    """Split an observation vector (``(D,)`` or batched ``(..., D)``) into its named
    pieces (``planes`` comes back as ``(..., 18, 21, 21)``; channel names in
    :data:`PLANE_NAMES`).

    Raises:
        ValueError: if the last axis is not ``OBS_DIM`` long.
    """
    return LAYOUT.decode(vector)
