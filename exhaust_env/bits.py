"""Bit helpers for the selection-mask kernels: LLVM's ``ctpop`` / ``cttz`` / ``ctlz`` on
64-bit words (single instructions on current CPUs), nonzero-byte masks of byte arrays
(one vector compare) and the card-set layout.

A set of number cards is a ``uint64`` word with bit ``k`` for card kind ``k`` (0..59,
``kind = colour * 15 + number - 1``), so colour ``c`` is the 15-bit slice at ``15 * c``
and a set of numbers is a 15-bit word with bit ``n - 1`` for number ``n``.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from tabletop_core.jit import kernel

from .spec import NUM_NUMBERS

NUMBERS_MASK = (1 << NUM_NUMBERS) - 1  # 0x7FFF: every number
SPREAD = 1 | 1 << 15 | 1 << 30 | 1 << 45  # a number set times SPREAD = its cards of every colour


def _bit_intrinsic(name):
    """An intrinsic calling ``llvm.<name>.i64`` on a uint64 (``cttz`` / ``ctlz`` defined at 0)."""
    i64 = ir.IntType(64)
    extra = [] if name == "ctpop" else [ir.IntType(1)]

    @intrinsic
    def _impl(typingctx, x):
        if x != types.uint64:
            return None

        def codegen(context, builder, signature, args):
            fn = cgutils.get_or_insert_function(
                builder.module, ir.FunctionType(i64, [i64, *extra]), f"llvm.{name}.i64"
            )
            call_args = [args[0]] + [ir.Constant(t, 0) for t in extra]
            return builder.call(fn, call_args)

        return types.int64(x), codegen

    return _impl


_ctpop = _bit_intrinsic("ctpop")
_cttz = _bit_intrinsic("cttz")
_ctlz = _bit_intrinsic("ctlz")


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


@kernel
def popcount(x):
    """Number of set bits of the 64-bit word ``x`` (int64)."""
    return _ctpop(np.uint64(x))


@kernel
def lowest_bit(x):
    """Index of the lowest set bit of ``x`` (64 when ``x`` is 0)."""
    return _cttz(np.uint64(x))


@kernel
def bit_length(x):
    """Bits needed for ``x``: index of the highest set bit plus one (0 when ``x`` is 0)."""
    return 64 - _ctlz(np.uint64(x))


@kernel
def numbers_of(cards):
    """15-bit set of the numbers present in the card set ``cards`` (any colour)."""
    c = np.uint64(cards)
    return (c | (c >> np.uint64(15)) | (c >> np.uint64(30)) | (c >> np.uint64(45))) & np.uint64(NUMBERS_MASK)


@kernel
def colour_slice(cards, colour):
    """15-bit set of the numbers of ``colour`` in the card set ``cards``."""
    return (np.uint64(cards) >> np.uint64(15 * colour)) & np.uint64(NUMBERS_MASK)
