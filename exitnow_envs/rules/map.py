"""Exit Now rules: the map (boards, layouts, derived bit boards, Map Swap, Centre Rotation, sealing doors)."""

from __future__ import annotations

import numpy as np

from tabletop_core.kernel.bits import ctz, stack_u32
from tabletop_core.kernel.jit import kernel

from ..spec import (
    BIT_ROWS,
    BOARD,
    EVENT_CHIP,
    EXIT,
    MAP,
    MAX_GHOSTS,
    NO_CHIP,
    NUM_KINDS,
    NUM_LAYOUTS,
    NUM_PLACES,
    PLACE,
)
from .common import (
    _B2,
    _CORNER_BC,
    _CORNER_BR,
    _EDGE_BC,
    _EDGE_BR,
    human_walkable,
    is_sealed,
    randint_r,
    rot_local,
)


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
def centre_rotation_r(e):
    """Turn the centre piece 90 degrees clockwise with its pieces and chips."""
    move_block_r(e, 1, 1, 1, 1, 1)
    e.slot_rot[4] = (e.slot_rot[4] + 1) % 4
