"""Bit helpers for the per-suit card sets of the State (``hand_bits``, ``capt_bits``).

A card set of one suit is a word whose bit ``r`` stands for rank ``r`` (bits 0..15 the
numbers, 16..21 the non-number cards). :func:`popcount` and :func:`lowest_bit` compile to
single instructions (LLVM ``ctpop`` / ``cttz``); ``nth_bit`` is the core's
``nth_set_bit`` (the ``k``-th set bit, branch-free).
"""

from __future__ import annotations

from tabletop_core.kernel.bits import ctz as lowest_bit
from tabletop_core.kernel.bits import nth_set_bit as nth_bit
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
