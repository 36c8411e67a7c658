"""Exit Now's rules as numba kernels over the State record array (``state.py``).

The rules are ``*_r`` kernels taking one env's record ``e = s[i]``; the public
``(s, i, ...)`` kernels of the same names are thin wrappers over them (for tests, the
AEC env and Python callers). A record is a plain pointer, and its array fields
(``e.cell``, ``e.hpos`` ...) are views without a reference count, whereas numba
reference-counts, with atomic operations, every array passed down a chain of calls (the
State ``s``, a row ``masks[i]``): measured, those cost more than the rules of a step (see
``tabletop_core/game.py``). The generator word is a field of the record (``e.rng``,
drawn with ``tabletop_core.rng.randint_word``: the numbers ``randint(s.rng, i, n)``
draws). Kernels that fill a buffer take the whole ``(B, n)`` buffer and the row index.

The engine (:func:`proceed_r`) runs every automatic part of the game (dice, revivals,
skipped turns, card draws, captures without a Cross) until an agent has a decision to
take (``State.phase``, ``State.current``) or the episode is over. Rules:
``docs/rules/exitnow.md``.

Decisions taken here where the rules file is silent (also listed in the env docs):

* The engine takes these steps by itself: rolls; a captured human's revival roll; a
  skipped turn; a human without Double Dice / Move 7 rolls without being asked; a human
  without a Cross is not asked at contact; a ghost with no possible move keeps its place
  (its remaining moves are lost). Every other decision is asked, even with one option.
* A human that cannot move at all stays; staying triggers nothing.
* Contact: the humans on the square, top first, who hold a Cross are asked in turn; a
  Cross banishes that ghost; if another ghost shares the square, contact starts again
  with it. Otherwise every human on the square is captured.
* A piece put on the map (a human entering at the start or restart square, a ghost
  appearing or sent back to the ghost start) onto a square holding the other side's
  pieces makes contact there. A human entering at the start square on a ghost ends its
  turn after the contact. A revived human is put on top of humans already there (no
  stealing, nobody loses a turn).
* The item chip is placed only when the confiscated pile holds at least one item, no
  item chip is on the map and some event-chip place has no chip and no piece.
* Seal Door: a human on the door dies (captured, no Cross possible); a ghost on it goes
  back to the ghost start. A sealed door is a one-square wall for ghost wall passes.
* Map Swap: corners or edges with probability 1/2, then a uniformly random pair of the
  four boards of that kind (the env's generator).
* Ghost slides never stop on water or on another ghost only because of them: they pass.
* ``max_rounds``: when the ghost player's turn of round ``max_rounds`` ends, the ghost wins.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from tabletop_core.bits import ctz, nonzero_bits_row, popcount, stack_u32, stack_u64
from tabletop_core.jit import kernel
from tabletop_core.rng import randint_word, shuffle_word

from .spec import (
    ADD_GHOST,
    BIT_ROWS,
    BOARD,
    CENTRE_ROTATION,
    CHIP_OFFSET,
    CROSS_NO,
    CROSS_YES,
    DECK,
    DECK_SIZE,
    DEST_OFFSET,
    DOOR_A,
    EVENT_CHIP,
    EXIT,
    FIRST_ITEM,
    FLOOR,
    GHOST_START,
    I_CROSS,
    I_DOUBLE,
    I_KEY,
    I_MOVE7,
    I_PICKAXE,
    ITEM_CHIP,
    ITEM_DOUBLE,
    ITEM_MOVE7,
    ITEM_NONE,
    MAP,
    MAP_SWAP,
    MAX_GHOSTS,
    NO_CHIP,
    NUM_ACTIONS,
    NUM_ITEM_KINDS,
    NUM_KINDS,
    NUM_LAYOUTS,
    NUM_PLACES,
    PASS_OFFSET,
    PLACE,
    RESTART,
    SEAL_A,
    SEAL_C,
    SEALED_A,
    SEALED_C,
    SLIDE_OFFSET,
    START,
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
    the number ``tabletop_core.rng.randint(s.rng, i, n)`` draws."""
    w, x = randint_word(e.rng, n)
    e.rng = w
    return x


@kernel
def die_r(e):
    """One die roll 1..6 from the env's generator."""
    return randint_r(e, 6) + 1


@kernel
def die(s, i):
    """One die roll 1..6 from env ``i``'s generator (:func:`die_r`)."""
    return die_r(s[i])


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
def ghost_free(s, i, r, c):
    """:func:`ghost_free_r` of env ``i``."""
    return ghost_free_r(s[i], r, c)


@kernel
def _on_top_r(e, h):
    """Human ``h`` goes on top of the pieces of its square (stacking order)."""
    e.height_counter += 1
    e.hheight[h] = e.height_counter


# --- map --------------------------------------------------------------------------------------
@kernel
def sync_map_r(e):
    """Recompute the fields derived from ``cell``, ``chip`` and ``place``: the bit
    boards ``wbits`` (human-walkable squares), ``xbits`` (exit), ``sbits`` (sealed doors),
    ``cbits`` (chips), the first square of each landmark kind ``kpos`` (exit, doors, start
    squares, sealed doors) and the place squares ``ppos``; count a new map version
    ``mapv`` and chip version ``chipv``. The rules kernels call it whenever cells or
    places change (and keep ``cbits`` / ``chipv`` in step themselves when a chip is taken
    or put: :func:`_set_chip_r`)."""
    e.mapv += 1
    e.chipv += 1
    e.kpos[:, :] = -1
    e.ppos[:, :] = -1
    for j in range(BIT_ROWS):
        e.wbits[j] = 0
        e.xbits[j] = 0
        e.sbits[j] = 0
        e.cbits[j] = 0
    for r in range(MAP):
        w = np.uint32(0)
        x = np.uint32(0)
        sl = np.uint32(0)
        ch = np.uint32(0)
        lm = np.uint32(0)
        pl = np.uint32(0)
        for c in range(MAP):
            k = e.cell[r, c]
            b = np.uint32(c)
            ex = k == EXIT
            se = is_sealed(k)
            x |= np.uint32(ex) << b
            sl |= np.uint32(se) << b
            w |= np.uint32(human_walkable(k)) << b
            ch |= np.uint32(e.chip[r, c] != NO_CHIP) << b
            lm |= np.uint32(k >= EXIT and k != PLACE) << b
            pl |= np.uint32(e.place[r, c] >= 0) << b
        e.wbits[r + 1] = w
        e.xbits[r + 1] = x
        e.sbits[r + 1] = sl
        e.cbits[r + 1] = ch
        while lm != 0:  # landmark squares of this row, left to right
            c = np.int64(ctz(lm))
            lm &= lm - np.uint32(1)
            k = e.cell[r, c]
            if k < NUM_KINDS and e.kpos[k, 0] < 0:
                e.kpos[k, 0] = r
                e.kpos[k, 1] = c
        while pl != 0:
            c = np.int64(ctz(pl))
            pl &= pl - np.uint32(1)
            p = e.place[r, c]
            if p < NUM_PLACES and e.ppos[p, 0] < 0:
                e.ppos[p, 0] = r
                e.ppos[p, 1] = c


@kernel
def sync_map(s, i):
    """:func:`sync_map_r` of env ``i``: call it after editing ``cell``, ``chip`` or
    ``place`` by hand."""
    sync_map_r(s[i])


@kernel
def _set_chip_r(e, r, c, chip):
    """Put ``chip`` (0: none) on (r, c), keeping ``cbits`` and ``chipv`` in step."""
    e.chip[r, c] = chip
    e.chipv += 1
    b = np.uint32(1) << np.uint32(c)
    if chip != 0:
        e.cbits[r + 1] |= b
    else:
        e.cbits[r + 1] &= ~b


@kernel
def _perm(idx):
    """Permutation number ``idx`` (0..23) of 0..3 in lexicographic order, packed: entry k
    in bits 4k..4k+3."""
    avail = 0x3210  # the values not used yet, as nibbles in increasing order
    out = 0
    f = 6
    for k in range(4):
        q = idx // f
        idx = idx % f
        out |= ((avail >> (4 * q)) & 15) << (4 * k)
        low = avail & ((1 << (4 * q)) - 1)
        avail = low | ((avail >> (4 * q + 4)) << (4 * q))  # drop nibble q
        if k < 3:
            f = f // (3 - k)
    return out


@kernel
def _put_r(e, src, br, bc, k):
    """Copy board ``src`` (7, 7) into block (br, bc) turned ``k`` quarter turns clockwise
    (:func:`rot_local`, written out per turn)."""
    r0 = br * BOARD
    c0 = bc * BOARD
    k = k % 4
    for r in range(BOARD):
        for c in range(BOARD):
            if k == 0:
                e.cell[r0 + r, c0 + c] = src[r, c]
            elif k == 1:
                e.cell[r0 + c, c0 + BOARD - 1 - r] = src[r, c]
            elif k == 2:
                e.cell[r0 + BOARD - 1 - r, c0 + BOARD - 1 - c] = src[r, c]
            else:
                e.cell[r0 + BOARD - 1 - c, c0 + r] = src[r, c]


@kernel
def build_map_r(e):
    """Lay the nine boards (layout, centre side and rotation from the options, or drawn
    from the env's generator in that order when random), put an event chip on every
    place and number the places 0..16 in reading order. Rules "The map"."""
    lay = np.int64(e.cfg_layout)
    if lay < 0:
        lay = randint_r(e, NUM_LAYOUTS)
    side = np.int64(e.cfg_centre_side)
    if side < 0:
        side = randint_r(e, 2)
    rot = np.int64(e.cfg_centre_rot)
    if rot < 0:
        rot = randint_r(e, 4)
    e.layout = lay
    cp = _perm(lay // 24)
    ep = _perm(lay % 24)
    for j in range(4):
        corner = (cp >> (4 * j)) & 15
        edge = (ep >> (4 * j)) & 15
        _put_r(e, e.cfg_corner[corner], _CORNER_BR[j], _CORNER_BC[j], j)
        e.slot_board[3 * _CORNER_BR[j] + _CORNER_BC[j]] = corner
        e.slot_rot[3 * _CORNER_BR[j] + _CORNER_BC[j]] = j
        _put_r(e, e.cfg_edge[edge], _EDGE_BR[j], _EDGE_BC[j], j)
        e.slot_board[3 * _EDGE_BR[j] + _EDGE_BC[j]] = edge
        e.slot_rot[3 * _EDGE_BR[j] + _EDGE_BC[j]] = j
    _put_r(e, e.cfg_centre[side], 1, 1, rot)
    e.slot_board[4] = side
    e.slot_rot[4] = rot
    n = 0
    for r in range(MAP):
        for c in range(MAP):
            if e.cell[r, c] == PLACE:
                e.chip[r, c] = EVENT_CHIP
                e.place[r, c] = n
                n += 1
            else:
                e.chip[r, c] = NO_CHIP
                e.place[r, c] = -1
    sync_map_r(e)


@kernel
def build_map(s, i):
    """:func:`build_map_r` of env ``i``."""
    build_map_r(s[i])


@kernel
def _move_piece_block(pos, k, br, bc, kk, br2, bc2):
    """If pos (2,) int8 lies in block (br, bc), move it to block (br2, bc2) turned kk."""
    r = np.int64(pos[0])
    c = np.int64(pos[1])
    if r < 0 or r // BOARD != br or c // BOARD != bc:
        return False
    rr, cc = rot_local(r - br * BOARD, c - bc * BOARD, kk)
    pos[0] = br2 * BOARD + rr
    pos[1] = bc2 * BOARD + cc
    return True


@kernel
def _square_word(e, r, c):
    """Square (r, c) in one word, for :func:`move_block_r`: cell | chip << 8 | (place + 1) << 16."""
    return np.uint32(e.cell[r, c]) | (np.uint32(e.chip[r, c]) << 8) | (np.uint32(e.place[r, c] + 1) << 16)


@kernel
def _set_square_word(e, r, c, w):
    """Write square (r, c) back from :func:`_square_word`."""
    e.cell[r, c] = w & 0xFF
    e.chip[r, c] = (w >> 8) & 0xFF
    e.place[r, c] = np.int64(w >> 16) - 1


@kernel
def move_block_r(e, bra, bca, brb, bcb, k):
    """Swap the boards in blocks a and b (a's content goes to b turned ``k`` quarter turns
    clockwise, b's to a turned ``-k``), pieces and chips included. With a == b the block
    is turned in place. Rules "Map Swap", "Centre Rotation"."""
    sa = stack_u32(_B2)  # the squares of block a (:func:`_square_word`), then of block b
    sb = stack_u32(_B2)
    for r in range(BOARD):
        for c in range(BOARD):
            sa[r * BOARD + c] = _square_word(e, bra * BOARD + r, bca * BOARD + c)
            sb[r * BOARD + c] = _square_word(e, brb * BOARD + r, bcb * BOARD + c)
    kb = (4 - k) % 4
    same = bra == brb and bca == bcb
    for r in range(BOARD):
        for c in range(BOARD):
            rr, cc = rot_local(r, c, k)
            _set_square_word(e, brb * BOARD + rr, bcb * BOARD + cc, sa[r * BOARD + c])
            if not same:
                rr, cc = rot_local(r, c, kb)
                _set_square_word(e, bra * BOARD + rr, bca * BOARD + cc, sb[r * BOARD + c])
    for h in range(e.cfg_humans):
        if not _move_piece_block(e.hpos[h], k, bra, bca, k, brb, bcb) and not same:
            _move_piece_block(e.hpos[h], kb, brb, bcb, kb, bra, bca)
    for g in range(MAX_GHOSTS):
        moved = e.gon[g] != 0 and _move_piece_block(e.gpos[g], k, bra, bca, k, brb, bcb)
        if e.gon[g] != 0 and not moved and not same:
            _move_piece_block(e.gpos[g], kb, brb, bcb, kb, bra, bca)
    sync_map_r(e)


@kernel
def map_swap_r(e, kind, a, b):
    """Swap outer boards ``a`` and ``b`` (slot numbers 0..3) of ``kind`` (0 corners, 1
    edges), each turned to keep its walls outward, with their pieces and chips."""
    if kind == 0:
        bra, bca, brb, bcb = _CORNER_BR[a], _CORNER_BC[a], _CORNER_BR[b], _CORNER_BC[b]
    else:
        bra, bca, brb, bcb = _EDGE_BR[a], _EDGE_BC[a], _EDGE_BR[b], _EDGE_BC[b]
    move_block_r(e, bra, bca, brb, bcb, (b - a) % 4)
    sa = 3 * bra + bca
    sb = 3 * brb + bcb
    t = e.slot_board[sa]
    e.slot_board[sa] = e.slot_board[sb]
    e.slot_board[sb] = t


@kernel
def map_swap(s, i, kind, a, b):
    """:func:`map_swap_r` of env ``i``."""
    map_swap_r(s[i], kind, a, b)


@kernel
def centre_rotation_r(e):
    """Turn the centre piece 90 degrees clockwise with its pieces and chips."""
    move_block_r(e, 1, 1, 1, 1, 1)
    e.slot_rot[4] = (e.slot_rot[4] + 1) % 4


@kernel
def centre_rotation(s, i):
    """:func:`centre_rotation_r` of env ``i``."""
    centre_rotation_r(s[i])


# --- human walks ------------------------------------------------------------------------------
_R = BIT_ROWS
_RF = 4 * BIT_ROWS + 2  # four frontier boards, one guard word before and after
_ALL = np.uint32(0xFFFFFFFF)
_ONE = np.uint64(1)
_ONE32 = np.uint32(1)


@kernel
def _walk_step(f, g, pas, end, stop, dest, lo, rows):
    """One step of every walk: ``f`` (_RF,) uint32 holds the squares reached by the walks
    of t steps, by their last direction (board d = direction d, words 1 + d * BIT_ROWS
    ...); write those of t + 1 steps into ``g``, add the squares entered that end a walk
    and the early stops met to ``dest``. Visits the rows ``lo .. lo + rows - 1`` (the
    walks never leave them; the other rows stay 0). Returns (any walk goes on, any walk
    ended)."""
    any_n = np.uint32(0)
    any_e = np.uint32(0)
    for k in range(rows):
        j = lo + k
        # entering row j: moving up from row j + 1 (not after a down step), down from
        # row j - 1 (not after an up step), right / left within the row
        up = f[2 + j] | f[2 + _R + j] | f[2 + 3 * _R + j]
        dn = f[_R + j] | f[2 * _R + j] | f[3 * _R + j]
        rt = (f[1 + j] | f[1 + _R + j] | f[1 + 2 * _R + j]) << _ONE32
        lf = (f[1 + j] | f[1 + 2 * _R + j] | f[1 + 3 * _R + j]) >> _ONE32
        p = pas[j]
        ended = (up | dn | rt | lf) & end[j]
        nu = up & p
        nr = rt & p
        nd = dn & p
        nl = lf & p
        g[1 + j] = nu
        g[1 + _R + j] = nr
        g[1 + 2 * _R + j] = nd
        g[1 + 3 * _R + j] = nl
        on = nu | nr | nd | nl
        dest[j] |= ended | (on & stop[j])
        any_n |= on
        any_e |= ended
    return any_n != 0, any_e != 0


@kernel
def walk_bits_r(e, h, length, acc):
    """The legal destinations of human ``h`` moving ``length`` squares as a bit board
    (``acc`` (BIT_ROWS,) uint64, layout of ``spec.BIT_ROWS``); returns their number.

    Same walks as :func:`reachable_r` describes, all at once: the walks of t steps are
    kept as four bit boards (one per last direction), and a step shifts each board
    into the three directions that do not turn straight back and masks it with the
    passable squares. A step only visits a window of 8, 16 or 24 rows around the start
    (those ``length`` steps can reach): a fixed row count per window, so that each step
    compiles to straight-line code. Allocates nothing (stack scratch, 32-bit rows)."""
    xm = _ALL if e.items[h, I_KEY] > 0 else np.uint32(0)
    sm = _ALL if e.items[h, I_PICKAXE] > 0 else np.uint32(0)
    pas = stack_u32(_R)  # walked through (walkable, no ghost)
    end = stack_u32(_R)  # entering ends the walk (a ghost; the exit with a key; a sealed door with a pickaxe)
    stop = stack_u32(_R)  # may stop early (a chip)
    dest = stack_u32(_R)  # the destinations found
    f = stack_u32(_RF)  # the walks of an even number of steps (start: 0 steps)
    g = stack_u32(_RF)  # ... of an odd number
    for j in range(_R):
        pas[j] = e.wbits[j]
        end[j] = (e.xbits[j] & xm) | (e.sbits[j] & sm)
        dest[j] = 0
    for q in range(_RF):
        f[q] = 0
        g[q] = 0
    for gh in range(MAX_GHOSTS):
        if e.gon[gh] != 0:
            j = np.int64(e.gpos[gh, 0]) + 1
            b = _ONE32 << np.uint32(e.gpos[gh, 1])
            end[j] |= e.wbits[j] & b
            pas[j] &= ~b
    for j in range(_R):
        stop[j] = pas[j] & e.cbits[j]
    j0 = np.int64(e.hpos[h, 0]) + 1
    b0 = _ONE32 << np.uint32(e.hpos[h, 1])
    for d in range(4):
        f[1 + d * _R + j0] = b0  # the start: every direction is open
    rows = 8 if length <= 3 else (16 if length <= 7 else _R)  # >= 2 * length + 1, or all
    lo = min(max(j0 - length, 0), _R - rows)  # the window holds rows j0 - length .. j0 + length
    longest = 0  # the last step that moved or ended a walk
    t_last = 0  # the last step that moved
    for t in range(1, length + 1):
        cur = f if t % 2 == 1 else g
        nxt = g if t % 2 == 1 else f
        if rows == 8:
            going, ended = _walk_step(cur, nxt, pas, end, stop, dest, lo, 8)
        elif rows == 16:
            going, ended = _walk_step(cur, nxt, pas, end, stop, dest, lo, 16)
        else:
            going, ended = _walk_step(cur, nxt, pas, end, stop, dest, lo, _R)
        longest = t if going or ended else longest
        if not going:
            break
        t_last = t
    if t_last >= 1 and t_last >= longest:  # the ends of the walks of t_last steps
        last = g if t_last % 2 == 1 else f
        for j in range(_R):
            dest[j] |= last[1 + j] | last[1 + _R + j] | last[1 + 2 * _R + j] | last[1 + 3 * _R + j]
    elif longest == 0:  # no move at all: stay
        dest[j0] |= b0
    n = 0
    for j in range(_R):
        acc[j] = dest[j]
        n += popcount(np.uint64(dest[j]))
    return n


@kernel
def reachable_r(e, h, length, out, row, offset):
    """Mark every legal destination of human ``h`` moving ``length`` squares.

    Writes 1 at ``out[row, offset + r * 21 + c]`` for each destination (r, c) (``out``
    (B, n) int8; the caller zeroes that range) and returns the number of destinations
    (>= 1). A walk steps orthogonally, never straight back onto the square just left,
    over passable squares (other humans may be passed); it ends on entering a ghost, the
    exit door (with a key) or a sealed door (with a pickaxe), and may stop early on an
    event chip or the item chip. Destinations: the ends of the walks of exactly
    ``length`` steps, every early stop and walk end met on the way; if no walk reaches
    ``length``, the ends of the longest walks instead; if the human cannot move at all,
    its own square. Rules "A human's turn" 3-6. (Computed by :func:`walk_bits_r`.)
    """
    acc = stack_u64(_R)
    n = walk_bits_r(e, h, length, acc)
    for j in range(1, MAP + 1):
        w = acc[j]
        base = offset + (j - 1) * MAP
        while w != 0:
            out[row, base + ctz(w)] = 1
            w &= w - _ONE
    return n


@kernel
def reachable(s, i, h, length, out, offset):
    """:func:`reachable_r` of env ``i`` into ``out`` (n,) int8 (1 at
    ``out[offset + row * 21 + col]``)."""
    return reachable_r(s[i], h, length, out[np.newaxis, :], 0, offset)


@kernel
def nth_bit(bits, k):
    """Square index ``row * 21 + col`` of the ``k``-th set bit (reading order, from 0) of
    the bit board ``bits``, or -1."""
    for j in range(1, MAP + 1):
        w = bits[j]
        pc = np.int64(popcount(w))
        if k < pc:
            for _ in range(k):
                w &= w - _ONE
            return (j - 1) * MAP + np.int64(ctz(w))
        k -= pc
    return -1


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
def chip_places(s, i):
    """:func:`chip_places_r` of env ``i``."""
    return chip_places_r(s[i])


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


@kernel
def draw_event(s, i, h):
    """:func:`draw_event_r` of env ``i``."""
    draw_event_r(s[i], h)


# --- turn engine ------------------------------------------------------------------------------
@kernel
def _human_turn_start_r(e, h):
    """Start human ``h``'s turn; return True when ``h`` has a decision to take."""
    if e.captured[h] != 0:
        e.turn_seat = h + 1
        r, c = find_kind_r(e, RESTART)
        if die_r(e) == 6 and r >= 0:
            e.captured[h] = 0
            e.entered[h] = 1
            e.hpos[h, 0] = r
            e.hpos[h, 1] = c
            _on_top_r(e, h)
            g = ghost_at_r(e, r, c)
            if g >= 0:
                start_contact_r(e, g)
        return False
    if e.skip[h] != 0:
        e.skip[h] = 0
        e.turn_seat = h + 1
        return False
    if e.entered[h] == 0:
        r, c = find_kind_r(e, START)
        if r < 0:  # only on hand-made test maps without a start square
            e.turn_seat = h + 1
            return False
        e.entered[h] = 1
        e.hpos[h, 0] = r
        e.hpos[h, 1] = c
        _on_top_r(e, h)
        g = ghost_at_r(e, r, c)
        if g >= 0:
            e.turn_seat = h + 1
            start_contact_r(e, g)
            return False
    e.current = h
    if e.items[h, I_DOUBLE] > 0 or e.items[h, I_MOVE7] > 0:
        e.phase = _P_ITEM
        e.roll = 0
        return True
    e.roll = die_r(e)
    e.phase = _P_MOVE
    return True


@kernel
def _next_ghost_r(e):
    """The next ghost of the ghost player's turn acts."""
    e.ghost_idx += 1
    e.ghost_rolled = 0
    e.moves_left = 0
    e.last_dir = -1


@kernel
def _ghost_turn_start_r(e):
    """Start the ghost player's turn (revival roll when no ghost is out)."""
    out = False
    for g in range(MAX_GHOSTS):
        if e.gon[g] != 0:
            out = True
    if not out:
        e.stage = ST_ROUND_END
        if die_r(e) == 6:
            r, c = find_kind_r(e, GHOST_START)
            _place_ghost_r(e, 0, r, c)
            start_contact_r(e, 0)
        return
    e.stage = ST_GHOST
    e.ghost_idx = 0
    e.ghost_rolled = 0
    e.moves_left = 0
    e.last_dir = -1


@kernel
def _ghost_continue_r(e):
    """Roll for / ask the acting ghost; return True when the ghost player must decide."""
    g = e.ghost_idx
    if g >= MAX_GHOSTS:
        e.stage = ST_ROUND_END
        return False
    if e.gon[g] == 0:
        _next_ghost_r(e)
        return False
    if e.ghost_rolled == 0:
        e.roll = die_r(e)
        e.moves_left = (e.roll + 1) // 2
        e.last_dir = -1
        e.ghost_rolled = 1
    if e.moves_left <= 0 or ghost_moves_r(e) == 0:
        _next_ghost_r(e)
        return False
    e.phase = _P_GHOST
    e.current = e.cfg_humans
    return True


@kernel
def proceed_r(e):
    """Run the automatic part of the game until a decision is pending or the game is over.

    Order: a pending contact (ask the next human holding a Cross, else capture everyone on
    the square), a pending item-chip placement, then the turn ``stage``.
    """
    n = e.cfg_humans
    while True:
        if e.status != _PLAYING:
            e.phase = _P_OVER
            return
        if e.contact_n > 0:
            while e.contact_k < e.contact_n:
                h = e.contact_q[e.contact_k]
                if e.items[h, I_CROSS] > 0:
                    e.phase = _P_CROSS
                    e.current = h
                    return
                e.contact_k += 1
            g = e.contact_ghost
            capture_square_r(e, e.gpos[g, 0], e.gpos[g, 1])
            e.contact_n = 0
            e.contact_ghost = -1
            continue
        if e.pending_chip != 0:
            e.pending_chip = 0
            if can_place_item_chip_r(e):
                e.phase = _P_CHIP
                e.current = n
                return
            continue
        if e.stage == ST_TURN:
            if e.turn_seat < n:
                if _human_turn_start_r(e, e.turn_seat):
                    return
            else:
                _ghost_turn_start_r(e)
        elif e.stage == ST_GHOST:
            if _ghost_continue_r(e):
                return
        else:
            e.round += 1
            if e.round >= e.cfg_max_rounds:
                e.status = _GHOST_WIN
            e.turn_seat = 0
            e.stage = ST_TURN


@kernel
def proceed(s, i):
    """:func:`proceed_r` of env ``i``."""
    proceed_r(s[i])


@kernel
def deal_r(e):
    """Start a new game with the env's generator: build the map, shuffle the 17 event
    cards, put ghost 1 on the ghost start, and run the engine to the first decision
    (human_0's first turn: it enters at the start square)."""
    build_map_r(e)
    for k in range(DECK_SIZE):
        e.deck[k] = _DECK[k]
    e.rng = shuffle_word(e.rng, e.deck, DECK_SIZE)
    e.deck_n = DECK_SIZE
    e.items[:, :] = 0
    e.confiscated[:] = 0
    e.used[:] = 0
    e.hpos[:, :] = -1
    e.hheight[:] = 0
    e.entered[:] = 0
    e.captured[:] = 0
    e.skip[:] = 0
    e.gpos[:, :] = -1
    e.gon[:] = 0
    r, c = find_kind_r(e, GHOST_START)
    _place_ghost_r(e, 0, r, c)
    e.last_card = -1
    e.phase = _P_OVER
    e.stage = ST_TURN
    e.turn_seat = 0
    e.roll = 0
    e.ghost_idx = 0
    e.ghost_rolled = 0
    e.moves_left = 0
    e.last_dir = -1
    e.contact_ghost = -1
    e.contact_q[:] = 0
    e.contact_n = 0
    e.contact_k = 0
    e.pending_chip = 0
    e.height_counter = 0
    e.round = 0
    e.winner = -1
    e.current = 0
    e.status = _PLAYING
    proceed_r(e)


@kernel
def deal(s, i):
    """:func:`deal_r` of env ``i`` (a new game with its generator)."""
    deal_r(s[i])


# --- actions ----------------------------------------------------------------------------------
MASK_WORDS = (NUM_ACTIONS + 63) // 64  # words of an action bit set (bit a % 64 of word a // 64: action a)


@kernel
def _put_bits(bits, pos, v, width):
    """OR the ``width`` (<= 64) low bits of ``v`` into the bit set ``bits`` at bit ``pos``."""
    v = np.uint64(v)
    w = pos >> 6
    sh = pos & 63
    bits[w] |= v << np.uint64(sh)
    if sh + width > 64:
        bits[w + 1] |= v >> np.uint64(64 - sh)


@kernel
def legal_bits_r(e, bits):
    """The acting seat's legal actions as a bit set (``bits`` (8,) uint64: bit a % 64 of
    word a // 64 is action a); returns their number (>= 1 while the game runs, 0 once it
    is over). ITEM: roll, and Double Dice / Move 7 when held; MOVE: the destinations of
    :func:`walk_bits_r`; CROSS: no / yes; GHOST: :func:`ghost_moves_r`; CHIP:
    :func:`chip_places_r`."""
    for k in range(MASK_WORDS):
        bits[k] = 0
    if e.status != _PLAYING:
        return 0
    ph = e.phase
    h = e.current
    if ph == _P_ITEM:
        m = np.uint64(1) << np.uint64(ITEM_NONE)
        if e.items[h, I_DOUBLE] > 0:
            m |= np.uint64(1) << np.uint64(ITEM_DOUBLE)
        if e.items[h, I_MOVE7] > 0:
            m |= np.uint64(1) << np.uint64(ITEM_MOVE7)
        bits[0] = m
    elif ph == _P_MOVE:
        acc = stack_u64(_R)
        walk_bits_r(e, h, e.roll, acc)
        for j in range(1, MAP + 1):  # map row j - 1: actions DEST_OFFSET + (j - 1) * 21 ...
            _put_bits(bits, DEST_OFFSET + (j - 1) * MAP, acc[j], MAP)
    elif ph == _P_CROSS:
        _put_bits(bits, CROSS_NO, 3, 2)  # CROSS_NO, CROSS_YES
    elif ph == _P_GHOST:
        _put_bits(bits, SLIDE_OFFSET, ghost_moves_r(e), 8)  # slides then wall passes
    elif ph == _P_CHIP:
        _put_bits(bits, CHIP_OFFSET, chip_places_r(e), NUM_PLACES)
    n = 0
    for k in range(MASK_WORDS):
        n += np.int64(popcount(bits[k]))
    return n


@intrinsic
def _store_bits_row(typingctx, arr, row, start, word, width):
    """``_store_bits_row(arr, row, start, word, width)``: write bit j of ``word`` (0 or 1)
    to ``arr[row, start + j]`` for j < ``width`` (a literal 8, 16, 32 or 64) in one vector
    store: the inverse of ``tabletop_core.bits.nonzero_bits_row``. ``arr``: 2-D
    C-contiguous int8 / uint8; the bytes written must lie inside row ``row`` (unchecked)."""
    if not (
        isinstance(arr, types.Array)
        and arr.ndim == 2
        and arr.layout == "C"
        and arr.dtype in (types.int8, types.uint8)
        and isinstance(row, types.Integer)
        and isinstance(start, types.Integer)
        and isinstance(word, types.Integer)
        and isinstance(width, types.IntegerLiteral)
        and width.literal_value in (8, 16, 32, 64)
    ):
        return None
    w = width.literal_value

    def codegen(context, builder, sig, args):
        ary = context.make_array(sig.args[0])(context, builder, args[0])
        stride = cgutils.unpack_tuple(builder, ary.strides, 2)[0]
        r = context.cast(builder, args[1], sig.args[1], types.intp)
        first = context.cast(builder, args[2], sig.args[2], types.intp)
        x = context.cast(builder, args[3], sig.args[3], types.uint64)
        bits = builder.bitcast(builder.trunc(x, ir.IntType(w)), ir.VectorType(ir.IntType(1), w))
        vec = builder.zext(bits, ir.VectorType(ir.IntType(8), w))
        ptr = builder.gep(ary.data, [builder.add(builder.mul(r, stride), first)])
        builder.store(vec, builder.bitcast(ptr, vec.type.as_pointer()), align=1)
        return context.get_dummy_value()

    return types.none(arr, row, start, word, width), codegen


_FULL = NUM_ACTIONS // 64  # whole words of an action bit set
_TAIL = 64 * _FULL  # first action of the last, partial word (448)
# the partial word's actions are read and written as 16 from _TAIL and the last 8
assert 16 < NUM_ACTIONS - _TAIL <= 24


@kernel
def write_mask_row(bits, out, row):
    """Write the action bit set ``bits`` (:func:`legal_bits_r`) as row ``row`` of ``out``
    ((B, 471) int8): every entry once, 0 or 1, in vector stores. A leaf kernel (it calls
    nothing), so numba keeps no reference count on ``out``."""
    for k in range(_FULL):
        _store_bits_row(out, row, 64 * k, bits[k], 64)
    w = bits[_FULL]
    _store_bits_row(out, row, _TAIL, w, 16)
    _store_bits_row(out, row, NUM_ACTIONS - 8, w >> np.uint64(NUM_ACTIONS - 8 - _TAIL), 8)


@kernel
def mask_row_bits(masks, row, bits):
    """Read row ``row`` of ``masks`` ((B, 471) int8, C-contiguous) into the action bit set
    ``bits`` ((MASK_WORDS,) uint64: bit set where the entry is nonzero); returns the
    number of nonzero entries. The inverse of :func:`write_mask_row`, in vector loads."""
    n = 0
    for k in range(_FULL):
        bits[k] = nonzero_bits_row(masks, row, 64 * k, 64)
        n += np.int64(popcount(bits[k]))
    lo = nonzero_bits_row(masks, row, _TAIL, 16)
    hi = nonzero_bits_row(masks, row, NUM_ACTIONS - 8, 8) >> np.uint64(_TAIL + 16 - (NUM_ACTIONS - 8))
    bits[_FULL] = lo | (hi << np.uint64(16))
    n += np.int64(popcount(bits[_FULL]))
    return n


@kernel
def legal_mask_r(e, out, row):
    """Write the acting seat's action mask into row ``row`` of ``out`` ((B, 471) int8;
    the row index rather than a row view ``out[row]``, which numba would reference-count);
    return the count (>= 1 while the game runs, 0 once it is over). The hot loops call
    :func:`legal_bits_r` and :func:`write_mask_row` themselves."""
    bits = stack_u64(MASK_WORDS)
    n = legal_bits_r(e, bits)
    write_mask_row(bits, out, row)
    return n


@kernel
def legal_mask(s, i, out):
    """:func:`legal_mask_r` of env ``i`` into ``out`` ((471,) int8); returns the count."""
    return legal_mask_r(s[i], out[np.newaxis, :], 0)


@kernel
def is_legal_r(e, action):
    """Whether ``action`` (any int) is legal for the acting seat (its bit in
    :func:`legal_bits_r`, without building the mask)."""
    if action < 0 or action >= NUM_ACTIONS:
        return False
    bits = stack_u64(MASK_WORDS)
    legal_bits_r(e, bits)
    return (bits[action >> 6] >> np.uint64(action & 63)) & _ONE != 0


@kernel
def is_legal(s, i, action):
    """:func:`is_legal_r` of env ``i``."""
    return is_legal_r(s[i], action)


@kernel
def sample_bits(bits, n, rng, r):
    """A uniformly random set bit of the bit set ``bits`` ((8,) uint64 holding ``n`` >= 1
    bits) drawn with stream ``r`` of ``rng``: one ``randint(rng, r, n)``, then the k-th set
    bit in increasing order (what ``tabletop_core.rng.sample_legal`` draws on the mask)."""
    w, k = randint_word(rng[r], n)
    rng[r] = w
    for q in range(MASK_WORDS):
        x = bits[q]
        c = np.int64(popcount(x))
        if k < c:
            for _ in range(k):
                x &= x - _ONE  # drop the lowest set bit k times
            return 64 * q + np.int64(ctz(x))
        k -= c
    return -1


@kernel
def random_legal_r(e, rng, r):
    """A uniformly random legal action drawn with stream ``r`` of ``rng`` ((R,) uint64)
    without building the mask: exactly what ``tabletop_core.rng.sample_legal`` draws from
    the :func:`legal_mask_r` (one ``randint(rng, r, count)``, then the k-th legal action
    in increasing order); -1 once the game is over (no draw)."""
    bits = stack_u64(MASK_WORDS)
    n = legal_bits_r(e, bits)
    if n == 0:
        return -1
    return sample_bits(bits, n, rng, r)


@kernel
def random_legal(s, i, rng, r):
    """:func:`random_legal_r` of env ``i``."""
    return random_legal_r(s[i], rng, r)


@kernel
def can_step_r(e, h):
    """Whether human ``h`` can take a first step: a neighbour square it may enter
    (walkable, a ghost's square included; the exit with a key; a sealed door with a
    pickaxe). When it cannot, its only destination is its own square and it stays;
    otherwise ending on its own square is a walk that came back (rules "A human's turn" 6-7)."""
    r = np.int64(e.hpos[h, 0])
    c = np.int64(e.hpos[h, 1])
    xm = _ALL if e.items[h, I_KEY] > 0 else np.uint32(0)
    sm = _ALL if e.items[h, I_PICKAXE] > 0 else np.uint32(0)
    for d in range(4):
        r1 = r + DR[d]
        c1 = c + DC[d]
        if in_map(r1, c1):
            j = r1 + 1
            b = np.uint32(1) << np.uint32(c1)
            if ((e.wbits[j] | (e.xbits[j] & xm) | (e.sbits[j] & sm)) & b) != 0:
                return True
    return False


@kernel
def move_human_r(e, h, r, c):
    """Human ``h`` ends its move on (r, c) (a legal destination): exit (win), pickaxe on a
    sealed door, contact with a ghost, stacking on humans (steal one random item from each
    below, who lose their next turn), event chip (draw), item chip (take the confiscated
    pile). The turn then ends. A walk that loops back to the human's own square arrives
    there too (stacks, steals and skips); only a human that could not move at all stays
    (:func:`can_step_r`). Rules "A human's turn" 4-9."""
    e.turn_seat = h + 1
    e.stage = ST_TURN
    if e.hpos[h, 0] == r and e.hpos[h, 1] == c and not can_step_r(e, h):
        return  # it could not move at all: it stays (a walk back to its square arrives)
    e.hpos[h, 0] = r
    e.hpos[h, 1] = c
    k = e.cell[r, c]
    if k == EXIT:
        e.items[h, I_KEY] -= 1
        e.used[I_KEY] += 1
        e.status = _HUMAN_WIN
        e.winner = h
        _on_top_r(e, h)
        return
    if is_sealed(k):
        e.items[h, I_PICKAXE] -= 1
        e.used[I_PICKAXE] += 1
        e.cell[r, c] = FLOOR
        sync_map_r(e)
    g = ghost_at_r(e, r, c)
    _on_top_r(e, h)
    if g >= 0:
        start_contact_r(e, g)
        return
    for b in range(e.cfg_humans):
        if b != h and e.hpos[b, 0] == r and e.hpos[b, 1] == c:
            total = 0
            for q in range(NUM_ITEM_KINDS):
                total += e.items[b, q]
            if total > 0:
                x = randint_r(e, total)
                for q in range(NUM_ITEM_KINDS):
                    if x < e.items[b, q]:
                        e.items[b, q] -= 1
                        e.items[h, q] += 1
                        break
                    x -= e.items[b, q]
            e.skip[b] = 1
    if e.chip[r, c] == EVENT_CHIP:
        _set_chip_r(e, r, c, 0)
        draw_event_r(e, h)
    elif e.chip[r, c] == ITEM_CHIP:
        _set_chip_r(e, r, c, 0)
        for q in range(NUM_ITEM_KINDS):
            e.items[h, q] += e.confiscated[q]
            e.confiscated[q] = 0


@kernel
def move_ghost_r(e, action):
    """The acting ghost makes one move (slide or wall pass); entering a human's square
    captures (contact) and ends that ghost's turn."""
    g = e.ghost_idx
    r = np.int64(e.gpos[g, 0])
    c = np.int64(e.gpos[g, 1])
    hit = False
    if action < PASS_OFFSET:
        d = action - SLIDE_OFFSET
        while True:
            r1 = r + DR[d]
            c1 = c + DC[d]
            if not ghost_free_r(e, r1, c1):
                break
            r = r1
            c = c1
            if humans_at_r(e, r, c) > 0:
                hit = True
                break
        e.moves_left -= 1
    else:
        d = action - PASS_OFFSET
        r = r + 2 * DR[d]
        c = c + 2 * DC[d]
        hit = humans_at_r(e, r, c) > 0
        e.moves_left -= 2
    e.gpos[g, 0] = r
    e.gpos[g, 1] = c
    e.last_dir = d
    if hit:
        _next_ghost_r(e)
        start_contact_r(e, g)


@kernel
def apply_action_r(e, action):
    """Apply a LEGAL ``action`` for the acting seat and run the engine to the next
    decision. Callers validate with :func:`is_legal_r` or the mask first."""
    ph = e.phase
    h = e.current
    if ph == _P_ITEM:
        if action == ITEM_DOUBLE:
            e.items[h, I_DOUBLE] -= 1
            e.used[I_DOUBLE] += 1
            e.roll = die_r(e) + die_r(e)
        elif action == ITEM_MOVE7:
            e.items[h, I_MOVE7] -= 1
            e.used[I_MOVE7] += 1
            e.roll = 7
        else:
            e.roll = die_r(e)
        e.phase = _P_MOVE
        return
    if ph == _P_MOVE:
        q = action - DEST_OFFSET
        move_human_r(e, h, q // MAP, q % MAP)
    elif ph == _P_CROSS:
        if action == CROSS_YES:
            e.items[h, I_CROSS] -= 1
            e.used[I_CROSS] += 1
            g = e.contact_ghost
            r = e.gpos[g, 0]
            c = e.gpos[g, 1]
            e.gon[g] = 0
            e.gpos[g, 0] = -1
            e.gpos[g, 1] = -1
            e.contact_n = 0
            e.contact_ghost = -1
            g2 = ghost_at_r(e, r, c)
            if g2 >= 0:
                start_contact_r(e, g2)
        else:
            e.contact_k += 1
    elif ph == _P_GHOST:
        move_ghost_r(e, action)
    elif ph == _P_CHIP:
        p = action - CHIP_OFFSET
        _set_chip_r(e, e.ppos[p, 0], e.ppos[p, 1], ITEM_CHIP)
    proceed_r(e)


@kernel
def apply_action(s, i, action):
    """:func:`apply_action_r` of env ``i`` (a LEGAL action: check with :func:`is_legal`)."""
    apply_action_r(s[i], action)


@kernel
def seat_reward_r(e, seat):
    """Episode reward of ``seat`` (0 while playing): +1 winners, -1 losers. A human's
    escape: the escaper wins (every human with ``cfg_team``), the ghost and the others
    lose; the ghost's win: the ghost +1, every human -1. Rules "End"."""
    if e.status == _PLAYING:
        return 0.0
    n = e.cfg_humans
    if e.status == _HUMAN_WIN:
        if seat == n:
            return -1.0
        if e.cfg_team != 0 or seat == e.winner:
            return 1.0
        return -1.0
    return 1.0 if seat == n else -1.0


@kernel
def seat_reward(s, i, seat):
    """:func:`seat_reward_r` of env ``i``."""
    return seat_reward_r(s[i], seat)
