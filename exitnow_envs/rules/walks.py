"""Exit Now rules: human walks (reachable squares and moves of a human piece)."""

from __future__ import annotations

import numpy as np

from tabletop_core.kernel.bits import ctz, imax, imin, nth_set_bit, popcount, stack_u32, stack_u64
from tabletop_core.kernel.jit import kernel

from ..spec import (
    BIT_ROWS,
    I_KEY,
    I_PICKAXE,
    MAP,
    MAX_GHOSTS,
)

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
    pas = stack_u32(_R)  # walked through (walkable, no ghost)
    end = stack_u32(_R)  # entering ends the walk (a ghost; the exit with a key; a sealed door with a pickaxe)
    stop = stack_u32(_R)  # may stop early (a chip)
    dest = stack_u32(_R)  # the destinations found
    f = stack_u32(_RF)  # the walks of an even number of steps (start: 0 steps)
    g = stack_u32(_RF)  # ... of an odd number
    _walk_boards_r(e, h, pas, end, stop, dest, f, g)
    j0 = np.int64(e.hpos[h, 0]) + 1
    b0 = _ONE32 << np.uint32(e.hpos[h, 1])
    for d in range(4):
        f[1 + d * _R + j0] = b0  # the start: every direction is open
    rows = 8 if length <= 3 else (16 if length <= 7 else _R)  # >= 2 * length + 1, or all
    lo = imin(imax(j0 - length, 0), _R - rows)  # the window holds rows j0 - length .. j0 + length
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


@kernel(inline="always")
def _walk_boards_r(e, h, pas, end, stop, dest, f, g):
    """The bit boards of human ``h``'s walk (:func:`walk_bits_r`): ``pas`` the squares
    walked through, ``end`` those entering ends the walk (a ghost; the exit with a key; a
    sealed door with a pickaxe), ``stop`` those it may stop early on (a chip); ``dest``
    and the walks ``f``, ``g`` cleared."""
    xm = _ALL if e.items[h, I_KEY] > 0 else np.uint32(0)
    sm = _ALL if e.items[h, I_PICKAXE] > 0 else np.uint32(0)
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
def nth_bit(bits, k):
    """Square index ``row * 21 + col`` of the ``k``-th set bit (reading order, from 0) of
    the bit board ``bits``, or -1."""
    for j in range(1, MAP + 1):
        w = bits[j]
        pc = np.int64(popcount(w))
        if k < pc:
            return (j - 1) * MAP + nth_set_bit(w, k)
        k -= pc
    return -1
