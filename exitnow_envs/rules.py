"""Exit Now's rules as numba kernels over the State record array (``state.py``).

Every kernel takes the State and the env index ``i`` and touches only that env. The
engine (:func:`proceed`) runs every automatic part of the game (dice, revivals, skipped
turns, card draws, captures without a Cross) until an agent has a decision to take
(``State.phase``, ``State.current``) or the episode is over. Rules: ``rules/exitnow.md``.

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

from tabletop_core.bits import ctz, popcount, stack_u64
from tabletop_core.jit import kernel
from tabletop_core.rng import randint, shuffle_prefix

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

_DR = np.array([-1, 0, 1, 0], np.int64)
_DC = np.array([0, 1, 0, -1], np.int64)
_DECK = np.array(DECK, np.int8)
_CORNER_BR = np.array([0, 0, 2, 2], np.int64)
_CORNER_BC = np.array([0, 2, 2, 0], np.int64)
_EDGE_BR = np.array([0, 1, 2, 1], np.int64)
_EDGE_BC = np.array([1, 2, 1, 0], np.int64)

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
def die(s, i):
    """One die roll 1..6 from env ``i``'s generator."""
    return randint(s.rng, i, 6) + 1


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
def find_kind(s, i, kind):
    """First square (reading order) of the landmark square kind ``kind`` (EXIT or any kind
    after PLACE: doors, start squares, sealed doors), or (-1, -1) (``State.kpos``)."""
    e = s[i]
    return np.int64(e.kpos[kind, 0]), np.int64(e.kpos[kind, 1])


@kernel
def ghost_at(s, i, r, c):
    """Lowest-numbered ghost on (r, c), or -1."""
    e = s[i]
    for g in range(MAX_GHOSTS):
        if e.gon[g] != 0 and e.gpos[g, 0] == r and e.gpos[g, 1] == c:
            return g
    return -1


@kernel
def humans_at(s, i, r, c):
    """Number of human pieces on (r, c)."""
    e = s[i]
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
def ghost_free(s, i, r, c):
    """Whether a ghost may move onto (r, c): on the map and not a wall, sealed door, exit
    door, event chip or item chip (water, open door places, other ghosts are free)."""
    if not in_map(r, c):
        return False
    e = s[i]
    k = e.cell[r, c]
    if k in (WALL, EXIT) or is_sealed(k):
        return False
    return e.chip[r, c] == 0


@kernel
def _on_top(s, i, h):
    e = s[i]
    e.height_counter += 1
    e.hheight[h] = e.height_counter


# --- map --------------------------------------------------------------------------------------
@kernel
def sync_map(s, i):
    """Recompute env ``i``'s fields derived from ``cell``, ``chip`` and ``place``: the bit
    boards ``wbits`` (human-walkable squares), ``xbits`` (exit), ``sbits`` (sealed doors),
    ``cbits`` (chips), the first square of each landmark kind ``kpos`` (exit, doors, start
    squares, sealed doors) and the place squares ``ppos``; count a new map version
    ``mapv`` and chip version ``chipv``. The rules kernels call it whenever cells or
    places change (and keep ``cbits`` / ``chipv`` in step themselves when a chip is taken
    or put: :func:`_set_chip`); call it after editing the map by hand."""
    e = s[i]
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
            w |= np.uint32(not (ex or se or k in (WALL, WATER))) << b
            ch |= np.uint32(e.chip[r, c] != 0) << b
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
def _set_chip(s, i, r, c, chip):
    """Put ``chip`` (0: none) on (r, c), keeping ``cbits`` and ``chipv`` in step."""
    e = s[i]
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
def _put(s, i, src, br, bc, k):
    """Copy board ``src`` (7, 7) into block (br, bc) turned ``k`` quarter turns clockwise
    (:func:`rot_local`, written out per turn)."""
    e = s[i]
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
def build_map(s, i):
    """Lay the nine boards of env ``i`` (layout, centre side and rotation from the options,
    or drawn from the env's generator in that order when random), put an event chip on
    every place and number the places 0..16 in reading order. Rules "The map"."""
    e = s[i]
    lay = np.int64(e.cfg_layout)
    if lay < 0:
        lay = randint(s.rng, i, NUM_LAYOUTS)
    side = np.int64(e.cfg_centre_side)
    if side < 0:
        side = randint(s.rng, i, 2)
    rot = np.int64(e.cfg_centre_rot)
    if rot < 0:
        rot = randint(s.rng, i, 4)
    e.layout = lay
    cp = _perm(lay // 24)
    ep = _perm(lay % 24)
    for j in range(4):
        corner = (cp >> (4 * j)) & 15
        edge = (ep >> (4 * j)) & 15
        _put(s, i, e.cfg_corner[corner], _CORNER_BR[j], _CORNER_BC[j], j)
        e.slot_board[3 * _CORNER_BR[j] + _CORNER_BC[j]] = corner
        e.slot_rot[3 * _CORNER_BR[j] + _CORNER_BC[j]] = j
        _put(s, i, e.cfg_edge[edge], _EDGE_BR[j], _EDGE_BC[j], j)
        e.slot_board[3 * _EDGE_BR[j] + _EDGE_BC[j]] = edge
        e.slot_rot[3 * _EDGE_BR[j] + _EDGE_BC[j]] = j
    _put(s, i, e.cfg_centre[side], 1, 1, rot)
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
                e.chip[r, c] = 0
                e.place[r, c] = -1
    sync_map(s, i)


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
def move_block(s, i, bra, bca, brb, bcb, k):
    """Swap the boards in blocks a and b (a's content goes to b turned ``k`` quarter turns
    clockwise, b's to a turned ``-k``), pieces and chips included. With a == b the block
    is turned in place. Rules "Map Swap", "Centre Rotation"."""
    e = s[i]
    ca = np.empty((BOARD, BOARD), np.uint8)
    cha = np.empty((BOARD, BOARD), np.uint8)
    pa = np.empty((BOARD, BOARD), np.int8)
    cb = np.empty((BOARD, BOARD), np.uint8)
    chb = np.empty((BOARD, BOARD), np.uint8)
    pb = np.empty((BOARD, BOARD), np.int8)
    for r in range(BOARD):
        for c in range(BOARD):
            ca[r, c] = e.cell[bra * BOARD + r, bca * BOARD + c]
            cha[r, c] = e.chip[bra * BOARD + r, bca * BOARD + c]
            pa[r, c] = e.place[bra * BOARD + r, bca * BOARD + c]
            cb[r, c] = e.cell[brb * BOARD + r, bcb * BOARD + c]
            chb[r, c] = e.chip[brb * BOARD + r, bcb * BOARD + c]
            pb[r, c] = e.place[brb * BOARD + r, bcb * BOARD + c]
    kb = (4 - k) % 4
    same = bra == brb and bca == bcb
    for r in range(BOARD):
        for c in range(BOARD):
            rr, cc = rot_local(r, c, k)
            e.cell[brb * BOARD + rr, bcb * BOARD + cc] = ca[r, c]
            e.chip[brb * BOARD + rr, bcb * BOARD + cc] = cha[r, c]
            e.place[brb * BOARD + rr, bcb * BOARD + cc] = pa[r, c]
            if not same:
                rr, cc = rot_local(r, c, kb)
                e.cell[bra * BOARD + rr, bca * BOARD + cc] = cb[r, c]
                e.chip[bra * BOARD + rr, bca * BOARD + cc] = chb[r, c]
                e.place[bra * BOARD + rr, bca * BOARD + cc] = pb[r, c]
    for h in range(e.cfg_humans):
        if not _move_piece_block(e.hpos[h], k, bra, bca, k, brb, bcb) and not same:
            _move_piece_block(e.hpos[h], kb, brb, bcb, kb, bra, bca)
    for g in range(MAX_GHOSTS):
        moved = e.gon[g] != 0 and _move_piece_block(e.gpos[g], k, bra, bca, k, brb, bcb)
        if e.gon[g] != 0 and not moved and not same:
            _move_piece_block(e.gpos[g], kb, brb, bcb, kb, bra, bca)
    sync_map(s, i)


@kernel
def map_swap(s, i, kind, a, b):
    """Swap outer boards ``a`` and ``b`` (slot numbers 0..3) of ``kind`` (0 corners, 1
    edges), each turned to keep its walls outward, with their pieces and chips."""
    e = s[i]
    if kind == 0:
        bra, bca, brb, bcb = _CORNER_BR[a], _CORNER_BC[a], _CORNER_BR[b], _CORNER_BC[b]
    else:
        bra, bca, brb, bcb = _EDGE_BR[a], _EDGE_BC[a], _EDGE_BR[b], _EDGE_BC[b]
    move_block(s, i, bra, bca, brb, bcb, (b - a) % 4)
    sa = 3 * bra + bca
    sb = 3 * brb + bcb
    t = e.slot_board[sa]
    e.slot_board[sa] = e.slot_board[sb]
    e.slot_board[sb] = t


@kernel
def centre_rotation(s, i):
    """Turn the centre piece 90 degrees clockwise with its pieces and chips."""
    e = s[i]
    move_block(s, i, 1, 1, 1, 1, 1)
    e.slot_rot[4] = (e.slot_rot[4] + 1) % 4


# --- human walks ------------------------------------------------------------------------------
_R = BIT_ROWS
_RF = 4 * BIT_ROWS + 2  # four frontier boards, one guard word before and after
_ALL = np.uint64(0xFFFFFFFFFFFFFFFF)
_ONE = np.uint64(1)


@kernel
def _walk_step(f, g, pas, end, stop, acc):
    """One step of every walk: ``f`` (_RF,) holds the squares reached by the walks of t
    steps, by their last direction (board d = direction d, words 1 + d * BIT_ROWS ...);
    write those of t + 1 steps into ``g``, add the squares entered that end a walk and
    the early stops met to ``acc``. Returns (any walk goes on, any walk ended)."""
    any_n = np.uint64(0)
    any_e = np.uint64(0)
    for j in range(_R):  # all words, padding included (its masks are 0): no loop remainder
        # entering row j: moving up from row j + 1 (not after a down step), down from
        # row j - 1 (not after an up step), right / left within the row
        up = f[2 + j] | f[2 + _R + j] | f[2 + 3 * _R + j]
        dn = f[_R + j] | f[2 * _R + j] | f[3 * _R + j]
        rt = (f[1 + j] | f[1 + _R + j] | f[1 + 2 * _R + j]) << _ONE
        lf = (f[1 + j] | f[1 + 2 * _R + j] | f[1 + 3 * _R + j]) >> _ONE
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
        acc[j] |= ended | (on & stop[j])
        any_n |= on
        any_e |= ended
    return any_n != 0, any_e != 0


@kernel
def walk_bits(s, i, h, length, acc):
    """The legal destinations of human ``h`` moving ``length`` squares as a bit board
    (``acc`` (BIT_ROWS,) uint64, layout of ``spec.BIT_ROWS``); returns their number.

    Same walks as :func:`reachable` describes, all at once: the walks of t steps are
    kept as four bit boards (one per last direction), and a step shifts each board
    into the three directions that do not turn straight back and masks it with the
    passable squares. Allocates nothing (stack scratch)."""
    e = s[i]
    xm = _ALL if e.items[h, I_KEY] > 0 else np.uint64(0)
    sm = _ALL if e.items[h, I_PICKAXE] > 0 else np.uint64(0)
    pas = stack_u64(_R)  # walked through (walkable, no ghost)
    end = stack_u64(_R)  # entering ends the walk (a ghost; the exit with a key; a sealed door with a pickaxe)
    stop = stack_u64(_R)  # may stop early (a chip)
    f = stack_u64(_RF)
    g = stack_u64(_RF)
    for j in range(_R):
        pas[j] = np.uint64(e.wbits[j])
        end[j] = (np.uint64(e.xbits[j]) & xm) | (np.uint64(e.sbits[j]) & sm)
        acc[j] = 0
    for q in range(_RF):
        f[q] = 0
        g[q] = 0
    for gh in range(MAX_GHOSTS):
        if e.gon[gh] != 0:
            j = np.int64(e.gpos[gh, 0]) + 1
            b = _ONE << np.uint64(e.gpos[gh, 1])
            end[j] |= np.uint64(e.wbits[j]) & b
            pas[j] &= ~b
    for j in range(_R):
        stop[j] = pas[j] & np.uint64(e.cbits[j])
    j0 = np.int64(e.hpos[h, 0]) + 1
    b0 = _ONE << np.uint64(e.hpos[h, 1])
    for d in range(4):
        f[1 + d * _R + j0] = b0  # the start: every direction is open
    longest = 0
    t_last = 0
    for t in range(1, length + 1):
        if t % 2 == 1:
            going, ended = _walk_step(f, g, pas, end, stop, acc)
        else:
            going, ended = _walk_step(g, f, pas, end, stop, acc)
        if ended:
            longest = t
        if not going:
            break
        t_last = t
        longest = t
    if t_last >= 1 and t_last >= longest:
        last = g if t_last % 2 == 1 else f
        for j in range(_R):
            acc[j] |= last[1 + j] | last[1 + _R + j] | last[1 + 2 * _R + j] | last[1 + 3 * _R + j]
    elif longest == 0:
        acc[j0] |= b0
    n = 0
    for j in range(_R):
        n += popcount(acc[j])
    return n


@kernel
def reachable(s, i, h, length, out, offset):
    """Mark every legal destination of human ``h`` moving ``length`` squares.

    Writes 1 at ``out[offset + row * 21 + col]`` (the caller zeroes that range) and
    returns the number of destinations (>= 1). A walk steps orthogonally, never straight
    back onto the square just left, over passable squares (other humans may be passed);
    it ends on entering a ghost, the exit door (with a key) or a sealed door (with a
    pickaxe), and may stop early on an event chip or the item chip. Destinations: the ends
    of the walks of exactly ``length`` steps, every early stop and walk end met on the way;
    if no walk reaches ``length``, the ends of the longest walks instead; if the human
    cannot move at all, its own square. Rules "A human's turn" 3-6. (Computed by
    :func:`walk_bits`.)
    """
    acc = stack_u64(_R)
    n = walk_bits(s, i, h, length, acc)
    for j in range(1, MAP + 1):
        w = acc[j]
        base = offset + (j - 1) * MAP
        while w != 0:
            out[base + ctz(w)] = 1
            w &= w - _ONE
    return n


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
def ghost_moves(s, i):
    """Legal moves of the acting ghost as a bitmask: bit d slide in direction d, bit 4 + d
    wall pass in direction d. A slide needs a free first square; a wall pass needs a wall
    (or sealed door) next, a free square beyond it and two moves left. The straight
    reversal of the previous move is removed unless nothing else is possible. Rules
    "The ghost player's turn"."""
    e = s[i]
    g = e.ghost_idx
    r = np.int64(e.gpos[g, 0])
    c = np.int64(e.gpos[g, 1])
    raw = 0
    for d in range(4):
        r1 = r + _DR[d]
        c1 = c + _DC[d]
        if not in_map(r1, c1):
            continue
        if ghost_free(s, i, r1, c1):
            raw |= 1 << d
        elif e.moves_left >= 2:
            k = e.cell[r1, c1]
            if (k == WALL or is_sealed(k)) and ghost_free(s, i, r1 + _DR[d], c1 + _DC[d]):
                raw |= 1 << (4 + d)
    if e.last_dir >= 0:
        back = (e.last_dir + 2) % 4
        m = raw & ~((1 << back) | (1 << (4 + back)))
        if m != 0:
            return m
    return raw


# --- captures, contact ----------------------------------------------------------------------
@kernel
def start_contact(s, i, g):
    """Ghost ``g`` and the humans on its square meet: queue them top first for the Cross
    question (``proceed`` asks them). Does nothing when no human is there."""
    e = s[i]
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
def capture_square(s, i, r, c):
    """Capture every human on (r, c): off the map, items to the confiscated pile; flag the
    item-chip placement. Rules "Capture"."""
    e = s[i]
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
def chip_place_ok(s, i, r, c):
    """Whether the item chip may go on (r, c): an event-chip place without chip or piece."""
    e = s[i]
    return (
        e.place[r, c] >= 0 and e.chip[r, c] == 0 and humans_at(s, i, r, c) == 0 and ghost_at(s, i, r, c) < 0
    )


@kernel
def chip_places(s, i):
    """Bitmask of the places p (bit p) where the item chip may go now (:func:`chip_place_ok`)."""
    e = s[i]
    m = 0
    for p in range(NUM_PLACES):
        r = np.int64(e.ppos[p, 0])
        if r >= 0 and chip_place_ok(s, i, r, e.ppos[p, 1]):
            m |= 1 << p
    return m


@kernel
def can_place_item_chip(s, i):
    """Whether the ghost player gets to place the item chip now (see module docstring)."""
    e = s[i]
    total = 0
    for k in range(NUM_ITEM_KINDS):
        total += e.confiscated[k]
    if total == 0:
        return False
    for p in range(NUM_PLACES):  # the item chip only ever lies on a place
        if e.ppos[p, 0] >= 0 and e.chip[e.ppos[p, 0], e.ppos[p, 1]] == ITEM_CHIP:
            return False
    return chip_places(s, i) != 0


@kernel
def _place_ghost(s, i, g, r, c):
    e = s[i]
    e.gon[g] = 1
    e.gpos[g, 0] = r
    e.gpos[g, 1] = c


@kernel
def _free_ghost(s, i):
    e = s[i]
    for g in range(MAX_GHOSTS):
        if e.gon[g] == 0:
            return g
    return -1


# --- events -------------------------------------------------------------------------------------
@kernel
def seal_door(s, i, letter):
    """Seal door ``letter`` (0 A, 1 B, 2 C): the place becomes a wall, a human on it dies
    (captured), a ghost on it returns to the ghost start. Rules "Seal Door X"."""
    e = s[i]
    r, c = find_kind(s, i, DOOR_A + letter)
    if r < 0:
        return
    e.cell[r, c] = SEALED_A + letter
    sync_map(s, i)
    capture_square(s, i, r, c)
    gr, gc = find_kind(s, i, GHOST_START)
    moved = False
    for g in range(MAX_GHOSTS):
        if e.gon[g] != 0 and e.gpos[g, 0] == r and e.gpos[g, 1] == c:
            e.gpos[g, 0] = gr
            e.gpos[g, 1] = gc
            moved = True
    if moved:
        g0 = ghost_at(s, i, gr, gc)
        start_contact(s, i, g0)


@kernel
def add_ghost(s, i):
    """Add Ghost: the lowest free ghost number appears on the ghost start (nothing if three
    are out); contact with humans standing there."""
    g = _free_ghost(s, i)
    if g < 0:
        return
    r, c = find_kind(s, i, GHOST_START)
    _place_ghost(s, i, g, r, c)
    start_contact(s, i, g)


@kernel
def draw_event(s, i, h):
    """Human ``h`` draws the bottom card of the event deck: keeps an item, resolves an
    action at once. Rules "A human's turn" 8."""
    e = s[i]
    if e.deck_n <= 0:
        return
    e.deck_n -= 1
    card = np.int64(e.deck[e.deck_n])
    if card >= FIRST_ITEM:
        e.items[h, card - FIRST_ITEM] += 1
        return
    e.last_card = card
    if card == ADD_GHOST:
        add_ghost(s, i)
    elif card >= SEAL_A and card <= SEAL_C:
        seal_door(s, i, card - SEAL_A)
    elif card == MAP_SWAP:
        kind = randint(s.rng, i, 2)
        a = randint(s.rng, i, 4)
        b = randint(s.rng, i, 3)
        if b >= a:
            b += 1
        map_swap(s, i, kind, a, b)
    elif card == CENTRE_ROTATION:
        centre_rotation(s, i)


# --- turn engine ------------------------------------------------------------------------------
@kernel
def _human_turn_start(s, i, h):
    """Start human ``h``'s turn; return True when ``h`` has a decision to take."""
    e = s[i]
    if e.captured[h] != 0:
        e.turn_seat = h + 1
        r, c = find_kind(s, i, RESTART)
        if die(s, i) == 6 and r >= 0:
            e.captured[h] = 0
            e.entered[h] = 1
            e.hpos[h, 0] = r
            e.hpos[h, 1] = c
            _on_top(s, i, h)
            g = ghost_at(s, i, r, c)
            if g >= 0:
                start_contact(s, i, g)
        return False
    if e.skip[h] != 0:
        e.skip[h] = 0
        e.turn_seat = h + 1
        return False
    if e.entered[h] == 0:
        r, c = find_kind(s, i, START)
        if r < 0:  # only on hand-made test maps without a start square
            e.turn_seat = h + 1
            return False
        e.entered[h] = 1
        e.hpos[h, 0] = r
        e.hpos[h, 1] = c
        _on_top(s, i, h)
        g = ghost_at(s, i, r, c)
        if g >= 0:
            e.turn_seat = h + 1
            start_contact(s, i, g)
            return False
    e.current = h
    if e.items[h, I_DOUBLE] > 0 or e.items[h, I_MOVE7] > 0:
        e.phase = _P_ITEM
        e.roll = 0
        return True
    e.roll = die(s, i)
    e.phase = _P_MOVE
    return True


@kernel
def _next_ghost(s, i):
    e = s[i]
    e.ghost_idx += 1
    e.ghost_rolled = 0
    e.moves_left = 0
    e.last_dir = -1


@kernel
def _ghost_turn_start(s, i):
    """Start the ghost player's turn (revival roll when no ghost is out)."""
    e = s[i]
    out = False
    for g in range(MAX_GHOSTS):
        if e.gon[g] != 0:
            out = True
    if not out:
        e.stage = ST_ROUND_END
        if die(s, i) == 6:
            r, c = find_kind(s, i, GHOST_START)
            _place_ghost(s, i, 0, r, c)
            start_contact(s, i, 0)
        return
    e.stage = ST_GHOST
    e.ghost_idx = 0
    e.ghost_rolled = 0
    e.moves_left = 0
    e.last_dir = -1


@kernel
def _ghost_continue(s, i):
    """Roll for / ask the acting ghost; return True when the ghost player must decide."""
    e = s[i]
    g = e.ghost_idx
    if g >= MAX_GHOSTS:
        e.stage = ST_ROUND_END
        return False
    if e.gon[g] == 0:
        _next_ghost(s, i)
        return False
    if e.ghost_rolled == 0:
        e.roll = die(s, i)
        e.moves_left = (e.roll + 1) // 2
        e.last_dir = -1
        e.ghost_rolled = 1
    if e.moves_left <= 0 or ghost_moves(s, i) == 0:
        _next_ghost(s, i)
        return False
    e.phase = _P_GHOST
    e.current = e.cfg_humans
    return True


@kernel
def proceed(s, i):
    """Run the automatic part of the game until a decision is pending or the game is over.

    Order: a pending contact (ask the next human holding a Cross, else capture everyone on
    the square), a pending item-chip placement, then the turn ``stage``.
    """
    e = s[i]
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
            capture_square(s, i, e.gpos[g, 0], e.gpos[g, 1])
            e.contact_n = 0
            e.contact_ghost = -1
            continue
        if e.pending_chip != 0:
            e.pending_chip = 0
            if can_place_item_chip(s, i):
                e.phase = _P_CHIP
                e.current = n
                return
            continue
        if e.stage == ST_TURN:
            if e.turn_seat < n:
                if _human_turn_start(s, i, e.turn_seat):
                    return
            else:
                _ghost_turn_start(s, i)
        elif e.stage == ST_GHOST:
            if _ghost_continue(s, i):
                return
        else:
            e.round += 1
            if e.round >= e.cfg_max_rounds:
                e.status = _GHOST_WIN
            e.turn_seat = 0
            e.stage = ST_TURN


@kernel
def deal(s, i):
    """Start a new game in env ``i`` with its generator: build the map, shuffle the 17
    event cards, put ghost 1 on the ghost start, and run the engine to the first decision
    (human_0's first turn: it enters at the start square)."""
    e = s[i]
    build_map(s, i)
    for k in range(DECK_SIZE):
        e.deck[k] = _DECK[k]
    shuffle_prefix(s.rng, i, e.deck, DECK_SIZE)
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
    r, c = find_kind(s, i, GHOST_START)
    _place_ghost(s, i, 0, r, c)
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
    proceed(s, i)


# --- actions ----------------------------------------------------------------------------------
@kernel
def legal_mask(s, i, out):
    """Write the acting seat's action mask into ``out`` ((471,) int8); return the count
    (>= 1 while the game runs, 0 once it is over)."""
    e = s[i]
    out[:] = 0
    if e.status != _PLAYING:
        return 0
    ph = e.phase
    h = e.current
    if ph == _P_ITEM:
        out[ITEM_NONE] = 1
        n = 1
        if e.items[h, I_DOUBLE] > 0:
            out[ITEM_DOUBLE] = 1
            n += 1
        if e.items[h, I_MOVE7] > 0:
            out[ITEM_MOVE7] = 1
            n += 1
        return n
    if ph == _P_MOVE:
        return reachable(s, i, h, e.roll, out, DEST_OFFSET)
    if ph == _P_CROSS:
        out[CROSS_NO] = 1
        out[CROSS_YES] = 1
        return 2
    if ph == _P_GHOST:
        m = ghost_moves(s, i)
        n = 0
        for d in range(4):
            if m & (1 << d):
                out[SLIDE_OFFSET + d] = 1
                n += 1
            if m & (1 << (4 + d)):
                out[PASS_OFFSET + d] = 1
                n += 1
        return n
    if ph == _P_CHIP:
        m = chip_places(s, i)
        n = 0
        for p in range(NUM_PLACES):
            if m & (1 << p):
                out[CHIP_OFFSET + p] = 1
                n += 1
        return n
    return 0


@kernel
def is_legal(s, i, action):
    """Whether ``action`` (any int) is legal for the acting seat of env ``i`` (the entry
    of :func:`legal_mask`, without building the mask)."""
    if action < 0 or action >= NUM_ACTIONS:
        return False
    e = s[i]
    if e.status != _PLAYING:
        return False
    ph = e.phase
    h = e.current
    if ph == _P_ITEM:
        return (
            action == ITEM_NONE
            or (action == ITEM_DOUBLE and e.items[h, I_DOUBLE] > 0)
            or (action == ITEM_MOVE7 and e.items[h, I_MOVE7] > 0)
        )
    if ph == _P_MOVE:
        if action < DEST_OFFSET or action >= CROSS_NO:
            return False
        acc = stack_u64(_R)
        walk_bits(s, i, h, e.roll, acc)
        q = action - DEST_OFFSET
        return (acc[q // MAP + 1] >> np.uint64(q % MAP)) & _ONE != 0
    if ph == _P_CROSS:
        return action in (CROSS_NO, CROSS_YES)
    if ph == _P_GHOST:
        if action < SLIDE_OFFSET or action >= CHIP_OFFSET:
            return False
        return ghost_moves(s, i) & (1 << (action - SLIDE_OFFSET)) != 0
    if ph == _P_CHIP:
        if action < CHIP_OFFSET:
            return False
        return chip_places(s, i) & (1 << (action - CHIP_OFFSET)) != 0
    return False


@kernel
def random_legal(s, i, rng, r):
    """A uniformly random legal action of env ``i`` drawn with stream ``r`` of ``rng``
    without building the mask: exactly what ``tabletop_core.rng.sample_legal`` draws from
    the :func:`legal_mask` (one ``randint(rng, r, count)``, then the k-th legal action in
    increasing order); -1 once the game is over (no draw)."""
    e = s[i]
    if e.status != _PLAYING:
        return -1
    ph = e.phase
    h = e.current
    if ph == _P_MOVE:
        acc = stack_u64(_R)
        n = walk_bits(s, i, h, e.roll, acc)
        return DEST_OFFSET + nth_bit(acc, randint(rng, r, n))
    if ph == _P_GHOST:
        m = np.uint64(ghost_moves(s, i))  # bit b: action SLIDE_OFFSET + b
    elif ph == _P_ITEM:
        m = np.uint64(1)  # bit b: action ITEM_NONE + b
        if e.items[h, I_DOUBLE] > 0:
            m |= np.uint64(1 << (ITEM_DOUBLE - ITEM_NONE))
        if e.items[h, I_MOVE7] > 0:
            m |= np.uint64(1 << (ITEM_MOVE7 - ITEM_NONE))
    elif ph == _P_CROSS:
        m = np.uint64(3)  # CROSS_NO, CROSS_YES
    elif ph == _P_CHIP:
        m = np.uint64(chip_places(s, i))
    else:
        return -1
    n = np.int64(popcount(m))
    if n == 0:
        return -1
    k = randint(rng, r, n)
    for _ in range(k):
        m &= m - _ONE
    b = np.int64(ctz(m))
    if ph == _P_GHOST:
        return SLIDE_OFFSET + b
    if ph == _P_ITEM:
        return ITEM_NONE + b
    if ph == _P_CROSS:
        return CROSS_NO + b
    return CHIP_OFFSET + b


@kernel
def move_human(s, i, h, r, c):
    """Human ``h`` ends its move on (r, c) (a legal destination): exit (win), pickaxe on a
    sealed door, contact with a ghost, stacking on humans (steal one random item from each
    below, who lose their next turn), event chip (draw), item chip (take the confiscated
    pile). The turn then ends. Rules "A human's turn" 4-9."""
    e = s[i]
    e.turn_seat = h + 1
    e.stage = ST_TURN
    if e.hpos[h, 0] == r and e.hpos[h, 1] == c:
        return
    e.hpos[h, 0] = r
    e.hpos[h, 1] = c
    k = e.cell[r, c]
    if k == EXIT:
        e.items[h, I_KEY] -= 1
        e.used[I_KEY] += 1
        e.status = _HUMAN_WIN
        e.winner = h
        _on_top(s, i, h)
        return
    if is_sealed(k):
        e.items[h, I_PICKAXE] -= 1
        e.used[I_PICKAXE] += 1
        e.cell[r, c] = FLOOR
        sync_map(s, i)
    g = ghost_at(s, i, r, c)
    _on_top(s, i, h)
    if g >= 0:
        start_contact(s, i, g)
        return
    for b in range(e.cfg_humans):
        if b != h and e.hpos[b, 0] == r and e.hpos[b, 1] == c:
            total = 0
            for q in range(NUM_ITEM_KINDS):
                total += e.items[b, q]
            if total > 0:
                x = randint(s.rng, i, total)
                for q in range(NUM_ITEM_KINDS):
                    if x < e.items[b, q]:
                        e.items[b, q] -= 1
                        e.items[h, q] += 1
                        break
                    x -= e.items[b, q]
            e.skip[b] = 1
    if e.chip[r, c] == EVENT_CHIP:
        _set_chip(s, i, r, c, 0)
        draw_event(s, i, h)
    elif e.chip[r, c] == ITEM_CHIP:
        _set_chip(s, i, r, c, 0)
        for q in range(NUM_ITEM_KINDS):
            e.items[h, q] += e.confiscated[q]
            e.confiscated[q] = 0


@kernel
def move_ghost(s, i, action):
    """The acting ghost makes one move (slide or wall pass); entering a human's square
    captures (contact) and ends that ghost's turn."""
    e = s[i]
    g = e.ghost_idx
    r = np.int64(e.gpos[g, 0])
    c = np.int64(e.gpos[g, 1])
    hit = False
    if action < PASS_OFFSET:
        d = action - SLIDE_OFFSET
        while True:
            r1 = r + _DR[d]
            c1 = c + _DC[d]
            if not ghost_free(s, i, r1, c1):
                break
            r = r1
            c = c1
            if humans_at(s, i, r, c) > 0:
                hit = True
                break
        e.moves_left -= 1
    else:
        d = action - PASS_OFFSET
        r = r + 2 * _DR[d]
        c = c + 2 * _DC[d]
        hit = humans_at(s, i, r, c) > 0
        e.moves_left -= 2
    e.gpos[g, 0] = r
    e.gpos[g, 1] = c
    e.last_dir = d
    if hit:
        _next_ghost(s, i)
        start_contact(s, i, g)


@kernel
def apply_action(s, i, action):
    """Apply a LEGAL ``action`` for the acting seat of env ``i`` and run the engine to the
    next decision. Callers validate with :func:`is_legal` or the mask first."""
    e = s[i]
    ph = e.phase
    h = e.current
    if ph == _P_ITEM:
        if action == ITEM_DOUBLE:
            e.items[h, I_DOUBLE] -= 1
            e.used[I_DOUBLE] += 1
            e.roll = die(s, i) + die(s, i)
        elif action == ITEM_MOVE7:
            e.items[h, I_MOVE7] -= 1
            e.used[I_MOVE7] += 1
            e.roll = 7
        else:
            e.roll = die(s, i)
        e.phase = _P_MOVE
        return
    if ph == _P_MOVE:
        q = action - DEST_OFFSET
        move_human(s, i, h, q // MAP, q % MAP)
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
            g2 = ghost_at(s, i, r, c)
            if g2 >= 0:
                start_contact(s, i, g2)
        else:
            e.contact_k += 1
    elif ph == _P_GHOST:
        move_ghost(s, i, action)
    elif ph == _P_CHIP:
        p = action - CHIP_OFFSET
        _set_chip(s, i, e.ppos[p, 0], e.ppos[p, 1], ITEM_CHIP)
    proceed(s, i)


@kernel
def seat_reward(s, i, seat):
    """Episode reward of ``seat`` (0 while playing): +1 winners, -1 losers. A human's
    escape: the escaper wins (every human with ``cfg_team``), the ghost and the others
    lose; the ghost's win: the ghost +1, every human -1. Rules "End"."""
    e = s[i]
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
