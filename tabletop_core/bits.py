"""Bit intrinsics for the rules kernels: card sets and board rows as machine words.

Several games keep sets (a suit's ranks, a colour's numbers, a board row's open squares)
as bits of one integer, so that "which cards are left", "how many" and "the next one" are
single instructions instead of loops:

* ``popcount(x)``: number of set bits (LLVM ``ctpop``), same integer type back;
* ``ctz(x)``: index of the lowest set bit (LLVM ``cttz``); the bit width for ``x == 0``;
* ``ctlz(x)``: number of leading zero bits (LLVM ``ctlz``); the bit width for ``x == 0``;
* ``bit_length(x)``: index of the highest set bit plus one (0 for ``x == 0``), as int64;
* ``stack_u32(n)``: an uninitialised ``(n,)`` uint32 scratch array in the calling kernel's
  stack frame. A per-step kernel must not allocate (``np.empty`` in a kernel costs tens of
  nanoseconds, a stack array nothing). ``n`` must be a compile-time constant (a literal or
  a module-level int, not an expression such as ``4 * N``); the array lives until the
  calling function returns, so never return it or keep it.

All take any numba integer type (signed ones are counted on their two's-complement bits).
"""

from __future__ import annotations

import numpy as np
from numba import carray, types
from numba.core import cgutils, errors
from numba.extending import intrinsic

from .jit import kernel

__all__ = ["popcount", "ctz", "ctlz", "bit_length", "stack_u32"]


@intrinsic
def popcount(typingctx, x):
    """Number of set bits of an integer (same type back)."""
    if not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, sig, args):
        return builder.ctpop(args[0])

    return x(x), codegen


@intrinsic
def ctz(typingctx, x):
    """Index of the lowest set bit of an integer (its bit width for 0)."""
    if not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, sig, args):
        return builder.cttz(args[0], context.get_constant(types.boolean, False))

    return x(x), codegen


@intrinsic
def ctlz(typingctx, x):
    """Number of leading zero bits of an integer (its bit width for 0)."""
    if not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, sig, args):
        return builder.ctlz(args[0], context.get_constant(types.boolean, False))

    return x(x), codegen


@kernel(inline="always")
def bit_length(x):
    """Bits needed for the unsigned 64-bit value of ``x``: highest set bit + 1 (0 for 0)."""
    return 64 - np.int64(ctlz(np.uint64(x)))


@intrinsic
def _stack_ptr_u32(typingctx, n):
    if not isinstance(n, types.IntegerLiteral):
        raise errors.RequireLiteralValue(n)
    size = n.literal_value

    def codegen(context, builder, sig, args):
        return cgutils.alloca_once(builder, context.get_data_type(types.uint32), size=size)

    return types.CPointer(types.uint32)(n), codegen


@kernel(inline="always")
def stack_u32(n):
    """An uninitialised ``(n,)`` uint32 array on the caller's stack (``n`` a constant)."""
    return carray(_stack_ptr_u32(n), n)
