"""Bit helpers for the per-suit card sets of the State (``hand_bits``, ``capt_bits``).

A card set of one suit is a word whose bit ``r`` stands for rank ``r`` (bits 0..15 the
numbers, 16..21 the non-number cards). :func:`popcount` and :func:`lowest_bit` compile to
single instructions (LLVM ``ctpop`` / ``cttz``).
"""

from __future__ import annotations

import numpy as np

from tabletop_core.kernel.bits import ctz as lowest_bit
from tabletop_core.kernel.bits import popcount
from tabletop_core.kernel.jit import kernel

from .spec import NUM_NUMBER_RANKS

NUMBER_BITS = (1 << NUM_NUMBER_RANKS) - 1  # bits of the number ranks 0..15

__all__ = ["NUMBER_BITS", "popcount", "lowest_bit", "longest_run", "nth_bit"]


@kernel
def longest_run(bits):
    """Length of the longest run of consecutive set bits of ``bits`` (>= 0)."""
    x = bits
    n = 0
    while x != 0:
        x &= x >> 1
        n += 1
    return n


@kernel
def nth_bit(bits, k):
    """Index of the ``k``-th (0-based, from the lowest) set bit of ``bits`` (< 2**32,
    with more than ``k`` set bits). Branch-free: a binary search on popcounts."""
    x = np.int64(bits)
    k = np.int64(k)
    pos = 0
    for width in (16, 8, 4, 2, 1):
        low = x & ((np.int64(1) << width) - 1)
        c = popcount(low)
        up = k >= c
        k = k - c if up else k
        x = x >> width if up else low
        pos = pos + width if up else pos
    return pos
