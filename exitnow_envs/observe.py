"""Exit Now's observation: named pieces in one flat float32 vector in [0, 1], from any
seat's view.

Pieces (in buffer order; the layout is the same for every player count, seats beyond
``num_humans`` read 0), each with the largest value it takes in game units (``high``;
the vector holds ``value / high``, see :mod:`tabletop_core.contract.encoders`)::

    piece           shape         high  meaning (game units, as decode_observation returns them)
    planes          (18, 21, 21)  1/4   map planes, channels PLANE_NAMES (below); flags, but
                                        other_humans counts up to 4 (capped: the ghost
                                        player's view of five humans on one square reads 4)
    seat            (6,)   1-hot  the observing seat (humans 0..4, ghost player 5)
    current         (6,)   1-hot  the acting seat (all 0 once the game is over)
    items           (5,)   2      the observer's own items by kind (key, cross, double dice,
                                  move 7, pickaxe); zeros for the ghost player
    item_counts     (5,)   10     items held by each human (public counts)
    roll            ()     12     the pending move length (human; 0 before rolling; two
                                  dice with Double Dice) or the acting ghost's die
    phase           (6,)   1-hot  spec.Phase
    round           ()     max_rounds  rounds completed (the option: the game's fraction)
    rounds_left     ()     max_rounds  max_rounds - round
    captured        (5,)   flag   1 if that human is captured
    skip            (5,)   flag   1 if that human loses its next turn
    entered         (5,)   flag   1 once that human has entered the map
    deck_size       ()     17     event cards left
    used            (5,)   2      used pile by item kind (public: items are declared when used)
    confiscated     ()     10     number of cards in the confiscated pile (its kinds are hidden)
    moves_left      ()     3      the acting ghost's moves left
    acting_ghost    (3,)   1-hot  the acting ghost during the ghost player's turn
    last_dir        (4,)   1-hot  that ghost's previous move this turn
    ghost_rolled    ()     flag   1 once the acting ghost has rolled
    team            ()     flag   1 with the team option
    ghost_moves     (8, 4)        what each move of the acting ghost does, one row per
                                  ghost action in action order (slides up, right, down,
                                  left, then wall passes; spec.SLIDE_OFFSET + k):
                                  possible (flag: the move is legal), catches (flag: it
                                  lands on a human), row and col where it lands (high
                                  20); all 0 outside the ghost player's move decisions

Plane channels: wall, water, exit, door_a, door_b, door_c (door places, open or
sealed), sealed_door, chip_place, event_chip, item_chip, human_start, human_restart,
ghost_start, own_piece, other_humans (number of other humans on the square),
ghost_1, ghost_2, ghost_3.

``ghost_moves`` gives the ghost's actions what a human's already have: a human's action
names its destination square, a ghost's only a direction, and where a slide ends depends
on every square along it (``rules.ghost_landing_r``, the rule the step applies). An MLP
had to rebuild that from the planes, and a network that clones the smart ghost plays it
markedly better with the piece (``docs/baselines.md``). It is written only in the ghost
player's move decisions (eight slides at most, from the rules' own helper), so the
humans' observations cost nothing more.

The declaration is :func:`pieces`; the kernels multiply by the reciprocals (``S_*``
constants) read from it, except for ``round`` and ``rounds_left``, whose high is the
env's ``max_rounds`` option (one float32 division an observation).

Never another human's item kinds, the event deck's order or the confiscated pile's
contents (tested).

The writers are ``*_r`` kernels taking the env's record ``e = s[i]`` and the whole
``(B, D)`` buffer with the row index (see ``rules``: neither the State nor a row view is
passed down, which numba would reference-count); from Python, on env ``i`` of a State in
place: ``tabletop_core.kernel.records.at(observe_r, s, i, seat, out[None, :], 0)``.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from tabletop_core.contract.encoders import ObservationLayout
from tabletop_core.kernel.bits import ctz, stack_f32, stack_u64, stream_row
from tabletop_core.kernel.jit import kernel

from .rules import ghost_landing_r, ghost_moves_r
from .spec import (
    DECK,
    DECK_SIZE,
    DEFAULT_MAX_ROUNDS,
    DOOR_A,
    DOOR_B,
    DOOR_C,
    EVENT_CHIP,
    EXIT,
    FIRST_ITEM,
    GHOST_START,
    ITEM_CHIP,
    MAP,
    MAX_GHOSTS,
    MAX_HUMANS,
    MAX_SEATS,
    NUM_ITEM_KINDS,
    NUM_PHASES,
    PASS_OFFSET,
    RESTART,
    SEALED_A,
    SEALED_B,
    SEALED_C,
    SLIDE_OFFSET,
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

ITEM_COPIES = max(DECK.count(FIRST_ITEM + k) for k in range(NUM_ITEM_KINDS))  # 2 of each
NUM_ITEM_CARDS = sum(DECK.count(FIRST_ITEM + k) for k in range(NUM_ITEM_KINDS))  # 10
MAX_ROLL = 12  # Double Dice: two dice
MAX_GHOST_MOVES = 3  # (die + 1) // 2
PLANES_HIGH = np.ones((NUM_PLANES, MAP, MAP))
PLANES_HIGH[CH["other_humans"]] = MAX_HUMANS - 1  # other humans on one square
GHOST_MOVE_NAMES = ("possible", "catches", "row", "col")
NUM_GHOST_ACTIONS = PASS_OFFSET + 4 - SLIDE_OFFSET  # 4 slides, 4 wall passes
GHOST_MOVES_HIGH = np.ones((NUM_GHOST_ACTIONS, len(GHOST_MOVE_NAMES)))
GHOST_MOVES_HIGH[:, 2:] = MAP - 1  # row, col


def pieces(max_rounds: int = DEFAULT_MAX_ROUNDS) -> list[tuple]:
    """The observation pieces ``(name, shape, high, kind)`` (module docstring)."""
    return [
        ("planes", (NUM_PLANES, MAP, MAP), PLANES_HIGH, "count"),
        ("seat", (MAX_SEATS,), 1, "one_hot"),
        ("current", (MAX_SEATS,), 1, "one_hot"),
        ("items", (NUM_ITEM_KINDS,), ITEM_COPIES, "count"),
        ("item_counts", (MAX_HUMANS,), NUM_ITEM_CARDS, "count"),
        ("roll", (), MAX_ROLL, "count"),
        ("phase", (NUM_PHASES,), 1, "one_hot"),
        ("round", (), max_rounds, "count"),
        ("rounds_left", (), max_rounds, "count"),
        ("captured", (MAX_HUMANS,), 1, "flag"),
        ("skip", (MAX_HUMANS,), 1, "flag"),
        ("entered", (MAX_HUMANS,), 1, "flag"),
        ("deck_size", (), DECK_SIZE, "count"),
        ("used", (NUM_ITEM_KINDS,), ITEM_COPIES, "count"),
        ("confiscated", (), NUM_ITEM_CARDS, "count"),
        ("moves_left", (), MAX_GHOST_MOVES, "count"),
        ("acting_ghost", (MAX_GHOSTS,), 1, "one_hot"),
        ("last_dir", (4,), 1, "one_hot"),
        ("ghost_rolled", (), 1, "flag"),
        ("team", (), 1, "flag"),
        ("ghost_moves", (NUM_GHOST_ACTIONS, len(GHOST_MOVE_NAMES)), GHOST_MOVES_HIGH, "count"),
    ]


@cache
def _layout(max_rounds: int) -> ObservationLayout:
    return ObservationLayout(pieces(max_rounds))


LAYOUT = _layout(DEFAULT_MAX_ROUNDS)
"""The layout with the default ``max_rounds`` (offsets are the same for every option)."""
OBS_DIM = LAYOUT.dim
_SQ = MAP * MAP
S_OTHERS = np.float32(1.0) / np.float32(MAX_HUMANS - 1)  # reciprocal scales (float32 constants)
_ONE = np.float32(1.0)
_ZERO = np.float32(0.0)
S_ITEMS = LAYOUT.scale["items"]
S_COUNTS = LAYOUT.scale["item_counts"]
S_ROLL = LAYOUT.scale["roll"]
S_DECK = LAYOUT.scale["deck_size"]
S_USED = LAYOUT.scale["used"]
S_CONF = LAYOUT.scale["confiscated"]
S_MOVES = LAYOUT.scale["moves_left"]
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
O_GMOVES = LAYOUT.offset["ghost_moves"]
S_SQUARE = np.float32(1.0) / np.float32(MAP - 1)  # a row or column of ghost_moves
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
    """The :class:`ObservationLayout` of ``options`` (an :class:`~exitnow_envs.spec.Options`;
    ``None``: the defaults). Only the high of ``round``/``rounds_left`` (``max_rounds``)
    depends on them; offsets and length never do."""
    return _layout(int(options.max_rounds) if options is not None else DEFAULT_MAX_ROUNDS)


@kernel
def _map_planes_r(e, out, row):
    """The planes wall .. ghost_start (everything drawn from cell, chip and place) into row
    ``row`` of ``out``, each by a branch-free loop over the squares that selects between
    two float32 constants (a vector blend; storing the comparison's bool instead converts
    it to float, which costs more)."""
    cell = e.cell.reshape(_SQ)
    chip = e.chip.reshape(_SQ)
    place = e.place.reshape(_SQ)
    for q in range(_SQ):
        out[row, _C_WALL + q] = _ONE if cell[q] == WALL else _ZERO
    for q in range(_SQ):
        out[row, _C_WATER + q] = _ONE if cell[q] == WATER else _ZERO
    for q in range(_SQ):
        out[row, _C_EXIT + q] = _ONE if cell[q] == EXIT else _ZERO
    for q in range(_SQ):
        out[row, _C_DOOR_A + q] = _ONE if (cell[q] == DOOR_A) | (cell[q] == SEALED_A) else _ZERO
    for q in range(_SQ):
        out[row, _C_DOOR_A + _SQ + q] = _ONE if (cell[q] == DOOR_B) | (cell[q] == SEALED_B) else _ZERO
    for q in range(_SQ):
        out[row, _C_DOOR_A + 2 * _SQ + q] = _ONE if (cell[q] == DOOR_C) | (cell[q] == SEALED_C) else _ZERO
    for q in range(_SQ):
        out[row, _C_SEALED + q] = _ONE if (cell[q] >= SEALED_A) & (cell[q] <= SEALED_C) else _ZERO
    for q in range(_SQ):
        out[row, _C_PLACE + q] = _ONE if place[q] >= 0 else _ZERO
    for q in range(_SQ):
        out[row, _C_EVENT + q] = _ONE if chip[q] == EVENT_CHIP else _ZERO
    for q in range(_SQ):
        out[row, _C_ITEMCHIP + q] = _ONE if chip[q] == ITEM_CHIP else _ZERO
    for q in range(_SQ):
        out[row, _C_START + q] = _ONE if cell[q] == START else _ZERO
    for q in range(_SQ):
        out[row, _C_RESTART + q] = _ONE if cell[q] == RESTART else _ZERO
    for q in range(_SQ):
        out[row, _C_GSTART + q] = _ONE if cell[q] == GHOST_START else _ZERO


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
            else:  # capped at 4: the ghost player's view counts all five humans
                others = out[row, _C_OTHERS + q] + S_OTHERS
                out[row, _C_OTHERS + q] = others if others < _ONE else _ONE
        total = 0
        for k in range(NUM_ITEM_KINDS):
            total += e.items[h, k]
        out[row, O_COUNTS + h] = np.float32(total) * S_COUNTS
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
            out[row, O_ITEMS + k] = np.float32(e.items[seat, k]) * S_ITEMS
    out[row, O_ROLL] = np.float32(e.roll) * S_ROLL
    out[row, O_PHASE + e.phase] = 1.0
    per_round = np.float32(1.0) / np.float32(e.cfg_max_rounds)
    out[row, O_ROUND] = np.float32(e.round) * per_round
    out[row, O_LEFT] = np.float32(e.cfg_max_rounds - e.round) * per_round
    out[row, O_DECK] = np.float32(e.deck_n) * S_DECK
    conf = 0
    for k in range(NUM_ITEM_KINDS):
        out[row, O_USED + k] = np.float32(e.used[k]) * S_USED
        conf += e.confiscated[k]
    out[row, O_CONF] = np.float32(conf) * S_CONF
    if e.status == 0 and e.phase == 3:
        out[row, O_MOVES] = np.float32(e.moves_left) * S_MOVES
        out[row, O_AGHOST + e.ghost_idx] = 1.0
        if e.last_dir >= 0:
            out[row, O_LASTDIR + e.last_dir] = 1.0
        out[row, O_ROLLED] = e.ghost_rolled
        if e.moves_left > 0 and e.gon[e.ghost_idx] != 0:
            _ghost_moves_r(e, out, row)
    out[row, O_TEAM] = e.cfg_team


@kernel
def _ghost_moves_r(e, out, row):
    """The ``ghost_moves`` piece (module docstring) of the acting ghost, into row ``row``
    (its range must be 0): for each legal move (:func:`~exitnow_envs.rules.ghost_moves_r`)
    where it lands and whether it catches (:func:`~exitnow_envs.rules.ghost_landing_r`)."""
    legal = ghost_moves_r(e)
    width = len(GHOST_MOVE_NAMES)
    for k in range(NUM_GHOST_ACTIONS):
        if legal & (1 << k):
            r, c, catches = ghost_landing_r(e, e.ghost_idx, SLIDE_OFFSET + k)
            q = O_GMOVES + k * width
            out[row, q] = 1.0
            out[row, q + 1] = catches
            out[row, q + 2] = np.float32(r) * S_SQUARE
            out[row, q + 3] = np.float32(c) * S_SQUARE


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


STREAM_MIN_BYTES = 1 << 25
"""Buffers at least this large (about a server's last-level cache) get the rows that are
written in full streamed to memory (:func:`observe_full_r`)."""


@kernel
def _observe_streamed_r(e, seat, out, row):
    """:func:`observe_r` into a scratch row on the stack (in the cache), then streamed to
    row ``row`` of ``out`` (:func:`tabletop_core.kernel.bits.stream_row`)."""
    scratch = stack_f32(OBS_DIM).reshape((1, OBS_DIM))
    observe_r(e, seat, scratch, 0)
    stream_row(scratch, 0, out, row)


@kernel
def observe_full_r(e, seat, out, row):
    """:func:`observe_r` (every entry of row ``row`` of ``out`` written), by the fastest
    way for the buffer's size: into a buffer of :data:`STREAM_MIN_BYTES` or more, the row
    is built in the cache and streamed out in whole lines (ordinary stores would read
    every line from memory before writing it, and evict what the step needs); into a
    smaller one, which the caller reads soon from the cache, directly."""
    if out.shape[0] * out.strides[0] >= STREAM_MIN_BYTES:
        _observe_streamed_r(e, seat, out, row)
    else:
        observe_r(e, seat, out, row)


@kernel
def _square_code(cell, chip, place):
    """What the map planes show of one square, in one byte: kind | chip << 4 | place << 6."""
    return np.uint8(cell | (chip << 4) | (np.uint8(place >= 0) << 6))


@kernel
def _row_address(out, row):
    """Address of row ``row`` of ``out`` (B, D) (uint64; the note ``addr``)."""
    return np.uint64(out.ctypes.data) + np.uint64(row * out.strides[0])


@kernel
def _note_written_r(e, n, note, addr):
    """Remember in note ``note`` of the notes record ``n`` (0: the observation buffer, 1:
    the final-observation buffer) what :func:`refresh_observation_r` left of the record
    ``e`` in the observation row at address ``addr``: versions and piece squares (the map
    squares are :func:`_note_squares_r`'s)."""
    n.addr[note] = addr
    n.mapv[note] = e.mapv
    n.chipv[note] = e.chipv
    for h in range(MAX_HUMANS):
        n.hpos[note, h, 0] = e.hpos[h, 0] if h < e.cfg_humans else -1
        n.hpos[note, h, 1] = e.hpos[h, 1]
    for g in range(MAX_GHOSTS):
        n.gpos[note, g, 0] = e.gpos[g, 0] if e.gon[g] != 0 else -1
        n.gpos[note, g, 1] = e.gpos[g, 1]


@kernel
def _note_squares_r(e, n, note):
    """Remember in note ``note`` of ``n`` every map square's code (after a write in full;
    :func:`_patch_map_planes_r` keeps them up to date after that)."""
    cell = e.cell.reshape(_SQ)
    chip = e.chip.reshape(_SQ)
    place = e.place.reshape(_SQ)
    sq = n.sq[note].reshape(_SQ)
    for q in range(_SQ):
        sq[q] = _square_code(cell[q], chip[q], place[q])


_SQ_WORDS = (_SQ + 7) // 8  # the map's squares in 8-byte words (the last one padded)


@kernel
def _patch_map_planes_r(e, n, note, out, row):
    """Rewrite the map-plane entries (row ``row`` of ``out``) of the squares whose cell,
    chip or place changed since note ``note`` of ``n`` (``sq``), and note their new codes.
    A branch-free pass over all squares (vectorized) writes each square's change of code
    to a scratch row of bytes; the changed squares (usually one: a chip taken) are then
    read from it eight at a time as words."""
    cell = e.cell.reshape(_SQ)
    chip = e.chip.reshape(_SQ)
    place = e.place.reshape(_SQ)
    sq = n.sq[note].reshape(_SQ)
    words = stack_u64(_SQ_WORDS)
    words[_SQ_WORDS - 1] = 0
    diff = words.view(np.uint8)
    for q in range(_SQ):
        diff[q] = _square_code(cell[q], chip[q], place[q]) ^ sq[q]
    for w in range(_SQ_WORDS):
        x = words[w]
        while x != 0:
            b = ctz(x) & 56  # the lowest changed byte's first bit
            x &= ~(np.uint64(0xFF) << np.uint64(b))
            q = w * 8 + (b >> 3)
            k = cell[q]
            ch = chip[q]
            sq[q] = _square_code(k, ch, place[q])
            out[row, _C_WALL + q] = k == WALL
            out[row, _C_WATER + q] = k == WATER
            out[row, _C_EXIT + q] = k == EXIT
            out[row, _C_DOOR_A + q] = (k == DOOR_A) | (k == SEALED_A)
            out[row, _C_DOOR_A + _SQ + q] = (k == DOOR_B) | (k == SEALED_B)
            out[row, _C_DOOR_A + 2 * _SQ + q] = (k == DOOR_C) | (k == SEALED_C)
            out[row, _C_SEALED + q] = (k >= SEALED_A) & (k <= SEALED_C)
            out[row, _C_PLACE + q] = place[q] >= 0
            out[row, _C_EVENT + q] = ch == EVENT_CHIP
            out[row, _C_ITEMCHIP + q] = ch == ITEM_CHIP
            out[row, _C_START + q] = k == START
            out[row, _C_RESTART + q] = k == RESTART
            out[row, _C_GSTART + q] = k == GHOST_START


@kernel
def refresh_observation_r(e, n, seat, out, row, note):
    """Make row ``row`` of ``out`` ((B, OBS_DIM) float32) the env's observation from
    ``seat``'s view, as :func:`observe_r` writes it, touching only what changed when it
    can.

    Note ``note`` of the notes record ``n`` (:data:`state.NOTES_DTYPE`, the adapter's,
    not the State's; note 0 is kept for the observation buffer, note 1 for the
    final-observation buffer) holds the address of the observation row this function
    last wrote with that note and what it wrote there.
    When that is row ``row`` of ``out`` (same address), only the
    map-plane entries of the squares whose cell, chip or place changed (looked for when
    the map or chip version moved), the squares the pieces left and reached and the
    scalar pieces are rewritten: the row must hold exactly what the previous call wrote
    (the env's own buffer, never modified by its users). Otherwise the whole row is
    written: to force that (a restored State, a buffer written elsewhere), set
    ``n.addr[note] = 0`` first. (No flag argument: a constant flag made numba compile this
    function and its note writer twice for a first step.)"""
    addr = _row_address(out, row)
    if n.addr[note] != addr:
        observe_full_r(e, seat, out, row)
        _note_written_r(e, n, note, addr)
        _note_squares_r(e, n, note)
        return
    if n.mapv[note] != e.mapv or n.chipv[note] != e.chipv:
        _patch_map_planes_r(e, n, note, out, row)
    for h in range(MAX_HUMANS):
        if n.hpos[note, h, 0] >= 0:
            q = n.hpos[note, h, 0] * MAP + n.hpos[note, h, 1]
            out[row, _C_OWN + q] = 0.0
            out[row, _C_OTHERS + q] = 0.0
    for g in range(MAX_GHOSTS):
        if n.gpos[note, g, 0] >= 0:
            out[row, _C_GHOST + g * _SQ + n.gpos[note, g, 0] * MAP + n.gpos[note, g, 1]] = 0.0
    for q in range(O_SEAT, OBS_DIM):
        out[row, q] = 0.0
    _pieces_and_scalars_r(e, seat, out, row)
    _note_written_r(e, n, note, addr)


def decode_observation(vector: np.ndarray, max_rounds: int = DEFAULT_MAX_ROUNDS) -> dict[str, np.ndarray]:
    """Split an observation vector (``(D,)`` or batched ``(..., D)``) into its named
    pieces in game units (``planes`` comes back as ``(..., 18, 21, 21)``; channel names in
    :data:`PLANE_NAMES`; counts, rolls and rounds as numbers; flags and one-hots as 0/1).

    ``max_rounds``: the env's option, which ``round`` and ``rounds_left`` are scaled by.

    Raises:
        ValueError: if the last axis is not ``OBS_DIM`` long, or ``max_rounds`` is not a
            positive integer.
    """
    if isinstance(max_rounds, bool) or not isinstance(max_rounds, (int, np.integer)) or max_rounds < 1:
        raise ValueError(f"max_rounds must be a positive integer, got {max_rounds!r}")
    return _layout(int(max_rounds)).decode(vector)
