"""Bit intrinsics for the rules kernels: card sets and board rows as machine words.

Several games keep sets (a suit's ranks, a colour's numbers, a board row's open squares)
as bits of one integer, so that "which cards are left", "how many" and "the next one" are
single instructions instead of loops:

* ``popcount(x)``: number of set bits (LLVM ``ctpop``), same integer type back;
* ``ctz(x)``: index of the lowest set bit (LLVM ``cttz``); the bit width for ``x == 0``;
* ``ctlz(x)``: number of leading zero bits (LLVM ``ctlz``); the bit width for ``x == 0``;
* ``bit_length(x)``: index of the highest set bit plus one (0 for ``x == 0``), as int64;
* ``nonzero_bits(arr, start, width)`` / ``nonzero_bits_row(arr, row, start, width)``: the
  bytes ``start .. start + width - 1`` of a 1-D (or of row ``row`` of a 2-D) int8 / uint8 /
  bool array (an action mask) as a uint64 bit set, in one vector compare;
* ``stack_u32(n)`` / ``stack_u64(n)``: an uninitialised ``(n,)`` uint32 / uint64 scratch
  array in the calling kernel's stack frame. A per-step kernel must not allocate (``np.empty`` in a kernel costs tens of
  nanoseconds, a stack array nothing). ``n`` must be a compile-time constant (a literal or
  a module-level int, not an expression such as ``4 * N``); the array lives until the
  calling function returns, so never return it or keep it;
* ``prefetch(arr, offset)``: a cache hint for the line at byte ``offset`` of ``arr``'s data
  (batch loops fetch the next env's rows while stepping this one);
* ``unowned(arr)``: a view of ``arr`` that numba does not reference-count (no atomic
  operations each time a hot loop passes it down), for arrays that outlive the call.

All take any numba integer type (signed ones are counted on their two's-complement bits).
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import carray, types
from numba.core import cgutils, errors
from numba.extending import intrinsic

from .jit import kernel

__all__ = [
    "popcount",
    "ctz",
    "ctlz",
    "bit_length",
    "seat_in",
    "stack_u32",
    "stack_u64",
    "prefetch",
    "unowned",
    "nonzero_bits",
    "nonzero_bits_row",
]


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
def seat_in(seats, seat):
    """Whether ``seat`` is in the seat bit set ``seats`` (bit k for seat k; -1 holds every
    seat): how the learner kernels name the seats a learner holds."""
    return (np.int64(seats) >> np.int64(seat)) & 1 != 0


@kernel(inline="always")
def bit_length(x):
    """Bits needed for the unsigned 64-bit value of ``x``: highest set bit + 1 (0 for 0)."""
    return 64 - np.int64(ctlz(np.uint64(x)))


def _stack_ptr(dtype):
    """An intrinsic ``n -> dtype*``: ``n`` (a literal) elements in the caller's entry block
    (``alloca_once``, so a numba-inlined caller gets one fixed slot, not one per loop)."""

    @intrinsic
    def stack_ptr(typingctx, n):
        if not isinstance(n, types.IntegerLiteral):
            raise errors.RequireLiteralValue(n)
        size = n.literal_value

        def codegen(context, builder, sig, args):
            return cgutils.alloca_once(builder, context.get_data_type(dtype), size=size)

        return types.CPointer(dtype)(n), codegen

    return stack_ptr


_stack_ptr_u32 = _stack_ptr(types.uint32)
_stack_ptr_u64 = _stack_ptr(types.uint64)


@kernel(inline="always")
def stack_u32(n):
    """An uninitialised ``(n,)`` uint32 array on the caller's stack (``n`` a constant)."""
    return carray(_stack_ptr_u32(n), n)


@kernel(inline="always")
def stack_u64(n):
    """An uninitialised ``(n,)`` uint64 array on the caller's stack (``n`` a constant)."""
    return carray(_stack_ptr_u64(n), n)


@intrinsic
def prefetch(typingctx, arr, offset):
    """``prefetch(arr, offset)``: hint the CPU to fetch the cache line at byte ``offset`` of
    ``arr``'s data (for reading, into every cache level). LLVM's ``prefetch``: a hint that
    never changes a result and never faults, even past the array's end."""
    if not isinstance(arr, types.Array) or not isinstance(offset, types.Integer):
        return None

    def codegen(context, builder, sig, args):
        ary = context.make_array(sig.args[0])(context, builder, args[0])
        i8p = ir.IntType(8).as_pointer()
        ptr = builder.gep(builder.bitcast(ary.data, i8p), [args[1]])
        i32 = ir.IntType(32)
        fnty = ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0i8")
        builder.call(fn, [ptr, i32(0), i32(3), i32(1)])
        return context.get_dummy_value()

    return types.none(arr, offset), codegen


@intrinsic
def unowned(typingctx, arr):
    """``unowned(arr)``: the same array (same data, shape and strides) without its owner
    reference, so that numba counts no references on it (no atomic operations when it is
    passed to a non-inlined kernel). For hot batch loops that pass their buffers down
    once per env step: take such views once per call. Only for arrays that outlive the
    call (the caller's), and the views must never leave it (never returned or stored)."""
    if not isinstance(arr, types.Array):
        return None

    def codegen(context, builder, sig, args):
        src = context.make_array(sig.args[0])(context, builder, args[0])
        view = context.make_array(sig.return_type)(context, builder)
        for name in ("nitems", "itemsize", "data", "shape", "strides"):
            setattr(view, name, getattr(src, name))
        view.meminfo = cgutils.get_null_value(view.meminfo.type)
        view.parent = cgutils.get_null_value(view.parent.type)
        return view._getvalue()

    return arr(arr), codegen


_BYTE_WIDTHS = (8, 16, 32, 64)


def _nonzero_codegen(context, builder, arr_type, arr, row, start, width):
    """LLVM IR: load ``width`` bytes at byte ``row * strides[0] + start`` of ``arr``,
    compare them with 0 and pack the result as an integer (bit j = byte ``start + j``)."""
    ary = context.make_array(arr_type)(context, builder, arr)
    pos = start
    if row is not None:
        stride = cgutils.unpack_tuple(builder, ary.strides, arr_type.ndim)[0]
        pos = builder.add(builder.mul(row, stride), start)
    vec = ir.VectorType(ir.IntType(8), width)
    ptr = builder.bitcast(builder.gep(ary.data, [pos]), vec.as_pointer())
    nonzero = builder.icmp_unsigned("!=", builder.load(ptr, align=1), ir.Constant(vec, None))
    bits = builder.bitcast(nonzero, ir.IntType(width))
    return builder.zext(bits, ir.IntType(64)) if width < 64 else bits


def _byte_array(arr, ndim) -> bool:
    return (
        isinstance(arr, types.Array)
        and arr.ndim == ndim
        and arr.layout == "C"
        and arr.dtype in (types.int8, types.uint8, types.boolean)
    )


@intrinsic
def nonzero_bits(typingctx, arr, start, width):
    """``nonzero_bits(arr, start, width)``: uint64 with bit j set where ``arr[start + j]``
    is nonzero, j < ``width`` (a literal 8, 16, 32 or 64). ``arr``: 1-D C-contiguous
    int8 / uint8 / bool; the bytes read must lie inside it (unchecked)."""
    if not _byte_array(arr, 1) or not isinstance(start, types.Integer):
        return None
    if not isinstance(width, types.IntegerLiteral) or width.literal_value not in _BYTE_WIDTHS:
        return None
    w = width.literal_value

    def codegen(context, builder, sig, args):
        first = context.cast(builder, args[1], sig.args[1], types.intp)
        return _nonzero_codegen(context, builder, sig.args[0], args[0], None, first, w)

    return types.uint64(arr, start, width), codegen


@intrinsic
def nonzero_bits_row(typingctx, arr, row, start, width):
    """:func:`nonzero_bits` of row ``row`` of a 2-D C-contiguous byte array."""
    if not _byte_array(arr, 2) or not isinstance(row, types.Integer) or not isinstance(start, types.Integer):
        return None
    if not isinstance(width, types.IntegerLiteral) or width.literal_value not in _BYTE_WIDTHS:
        return None
    w = width.literal_value

    def codegen(context, builder, sig, args):
        r = context.cast(builder, args[1], sig.args[1], types.intp)
        first = context.cast(builder, args[2], sig.args[2], types.intp)
        return _nonzero_codegen(context, builder, sig.args[0], args[0], r, first, w)

    return types.uint64(arr, row, start, width), codegen
