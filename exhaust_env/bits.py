"""Bit helpers for the selection-mask kernels: LLVM's ``ctpop`` / ``cttz`` / ``ctlz`` on
64-bit words (single instructions on current CPUs), nonzero-byte masks of byte arrays
(one vector compare) and the card-set layout.

A set of number cards is a ``uint64`` word with bit ``k`` for card kind ``k`` (0..59,
``kind = colour * 15 + number - 1``), so colour ``c`` is the 15-bit slice at ``15 * c``
and a set of numbers is a 15-bit word with bit ``n - 1`` for number ``n``.
"""

from __future__ import annotations

import numpy as np

from tabletop_core.kernel.bits import ctlz as _ctlz
from tabletop_core.kernel.bits import ctz as _cttz
from tabletop_core.kernel.bits import nonzero_bits, nonzero_bits_row
from tabletop_core.kernel.bits import popcount as _ctpop
from tabletop_core.kernel.jit import kernel

from .spec import NUM_NUMBERS

NUMBERS_MASK = (1 << NUM_NUMBERS) - 1  # 0x7FFF: every number
SPREAD = 1 | 1 << 15 | 1 << 30 | 1 << 45  # a number set times SPREAD = its cards of every colour

__all__ = [
    "NUMBERS_MASK",
    "SPREAD",
    "popcount",
    "lowest_bit",
    "bit_length",
    "numbers_of",
    "colour_slice",
    "nonzero_bits",
    "nonzero_bits_row",
]


@kernel
def popcount(x):
    """Number of set bits of the 64-bit word ``x`` (int64)."""
    return np.int64(_ctpop(np.uint64(x)))


@kernel
def lowest_bit(x):
    """Index of the lowest set bit of ``x`` (64 when ``x`` is 0)."""
    return np.int64(_cttz(np.uint64(x)))


@kernel
def bit_length(x):
    """Bits needed for ``x``: index of the highest set bit plus one (0 when ``x`` is 0)."""
    return 64 - np.int64(_ctlz(np.uint64(x)))


@kernel
def numbers_of(cards):
    """15-bit set of the numbers present in the card set ``cards`` (any colour)."""
    c = np.uint64(cards)
    return (c | (c >> np.uint64(15)) | (c >> np.uint64(30)) | (c >> np.uint64(45))) & np.uint64(NUMBERS_MASK)


@kernel
def colour_slice(cards, colour):
    """15-bit set of the numbers of ``colour`` in the card set ``cards``."""
    return (np.uint64(cards) >> np.uint64(15 * colour)) & np.uint64(NUMBERS_MASK)
