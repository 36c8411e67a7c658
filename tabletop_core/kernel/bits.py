"""Bit intrinsics for the rules kernels: card sets and board rows as machine words.

Several games keep sets (a suit's ranks, a colour's numbers, a board row's open squares)
as bits of one integer, so that "which cards are left", "how many" and "the next one" are
single instructions instead of loops:

* ``popcount(x)``: number of set bits (LLVM ``ctpop``), same integer type back;
* ``ctz(x)``: index of the lowest set bit (LLVM ``cttz``); the bit width for ``x == 0``;
* ``ctlz(x)``: number of leading zero bits (LLVM ``ctlz``); the bit width for ``x == 0``;
* ``bit_length(x)``: index of the highest set bit plus one (0 for ``x == 0``), as int64;
* ``nth_set_bit(x, k)``: index of the ``k``-th lowest set bit (a random legal action's
  bit in a word, once ``k`` is drawn), branch-free;
* ``nonzero_bits(arr, start, width)`` / ``nonzero_bits_row(arr, row, start, width)``: the
  bytes ``start .. start + width - 1`` of a 1-D (or of row ``row`` of a 2-D) int8 / uint8 /
  bool array (an action mask) as a uint64 bit set, in one vector compare;
* ``store_bits_row(arr, row, start, word, width)``: the inverse, bits of ``word`` written
  as 0 / 1 bytes in one vector store;
* ``write_bits_row(bits, out, row, n)`` / ``read_bits_row(masks, row, n, bits)``: a whole
  action mask row of ``n`` entries from / to an action bit set (``(ceil(n / 64),)``
  uint64 words, bit ``a & 63`` of word ``a >> 6`` = action ``a``), in vector stores /
  loads: the one bit-set-to-mask helper of the games that keep legal actions as bits;
* ``stack_u32(n)`` / ``stack_u64(n)``: an uninitialised ``(n,)`` uint32 / uint64 scratch
  array in the calling kernel's stack frame. A per-step kernel must not allocate (``np.empty`` in a kernel costs tens of
  nanoseconds, a stack array nothing). ``n`` must be a compile-time constant (a literal or
  a module-level int, not an expression such as ``4 * N``); the array lives until the
  calling function returns, so never return it or keep it;
* ``stack_f32(n)``: the same for float32 (a scratch observation row); ``stack_u8``,
  ``stack_i16``, ``stack_u16``, ``stack_i64``, ``stack_f64`` for the other scratch types
  (a bot's grids and queues);
* ``stream_row(src, srow, dst, drow)``: copy row ``srow`` of ``src`` to row ``drow`` of
  ``dst`` with non-temporal (streaming) stores, which write whole cache lines to memory
  without reading them first and without evicting the cache: for rows of a buffer far
  larger than the cache, written now and read much later (a batch's observations);
* ``prefetch(arr, offset)``: a cache hint for the line at byte ``offset`` of ``arr``'s data
  (batch loops fetch the next env's rows while stepping this one); ``prefetch_row(arr,
  row)`` hints every line of row ``row`` of a C-contiguous array (a minibatch's gathers
  fetch the rows of samples a few ahead);
* ``unowned(arr)``: a view of ``arr`` that numba does not reference-count (no atomic
  operations each time a hot loop passes it down), for arrays that outlive the call.

All take any numba integer type (signed ones are counted on their two's-complement bits).
"""

from __future__ import annotations

import platform

import numpy as np
from llvmlite import ir
from numba import carray, types
from numba.core import cgutils, errors
from numba.extending import intrinsic, overload

from tabletop_core.kernel.jit import NUMBA_OPTIONS, kernel

__all__ = [
    "popcount",
    "ctz",
    "ctlz",
    "bit_length",
    "nth_set_bit",
    "seat_in",
    "imax",
    "imin",
    "f32_bits",
    "f32_from_bits",
    "bf16_bits",
    "bf16_value",
    "stack_u32",
    "stack_u64",
    "stack_f32",
    "stack_u8",
    "stack_i16",
    "stack_u16",
    "stack_i64",
    "stack_f64",
    "stream_row",
    "prefetch",
    "prefetch_row",
    "unowned",
    "nonzero_bits",
    "nonzero_bits_row",
    "store_bits_row",
    "write_bits_row",
    "read_bits_row",
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


@kernel(inline="always")
def nth_set_bit(x, k):
    """Index (int64) of the ``k``-th set bit of the integer ``x``, counted from 0 at the
    lowest, read as 64 bits; ``x`` must have more than ``k`` set bits. A binary search on
    popcounts: six steps whatever ``k``, no data-dependent branch or loop."""
    w = np.uint64(x)
    k = np.int64(k)
    pos = np.int64(0)
    for width in (32, 16, 8, 4, 2, 1):
        low = w & ((np.uint64(1) << np.uint64(width)) - np.uint64(1))
        c = np.int64(popcount(low))
        up = k >= c
        k = k - c if up else k
        w = (w >> np.uint64(width)) if up else low
        pos = pos + width if up else pos
    return pos


@kernel(inline="always")
def imax(a, b):
    """The larger of two numbers (``a`` when equal), as one select. Kernels use it where
    the builtin ``max(a, b)`` would stand in a hot loop: numba (0.6x) compiles the
    builtin as a call that LLVM does not inline, and the call also keeps LLVM from
    vectorizing the loop around it."""
    return a if a >= b else b


@kernel(inline="always")
def imin(a, b):
    """The smaller of two numbers (``a`` when equal), as one select (see :func:`imax`)."""
    return a if a <= b else b


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
_stack_ptr_f32 = _stack_ptr(types.float32)
_stack_ptr_u8 = _stack_ptr(types.uint8)
_stack_ptr_i16 = _stack_ptr(types.int16)
_stack_ptr_u16 = _stack_ptr(types.uint16)
_stack_ptr_i64 = _stack_ptr(types.int64)
_stack_ptr_f64 = _stack_ptr(types.float64)


@kernel(inline="always")
def stack_u32(n):
    """An uninitialised ``(n,)`` uint32 array on the caller's stack (``n`` a constant)."""
    return carray(_stack_ptr_u32(n), n)


@kernel(inline="always")
def stack_u64(n):
    """An uninitialised ``(n,)`` uint64 array on the caller's stack (``n`` a constant)."""
    return carray(_stack_ptr_u64(n), n)


@kernel(inline="always")
def stack_f32(n):
    """An uninitialised ``(n,)`` float32 array on the caller's stack (``n`` a constant)."""
    return carray(_stack_ptr_f32(n), n)


@kernel(inline="always")
def stack_u8(n):
    """An uninitialised ``(n,)`` uint8 array on the caller's stack (``n`` a constant)."""
    return carray(_stack_ptr_u8(n), n)


@kernel(inline="always")
def stack_i16(n):
    """An uninitialised ``(n,)`` int16 array on the caller's stack (``n`` a constant)."""
    return carray(_stack_ptr_i16(n), n)


@kernel(inline="always")
def stack_u16(n):
    """An uninitialised ``(n,)`` uint16 array on the caller's stack (``n`` a constant)."""
    return carray(_stack_ptr_u16(n), n)


@kernel(inline="always")
def stack_i64(n):
    """An uninitialised ``(n,)`` int64 array on the caller's stack (``n`` a constant)."""
    return carray(_stack_ptr_i64(n), n)


@kernel(inline="always")
def stack_f64(n):
    """An uninitialised ``(n,)`` float64 array on the caller's stack (``n`` a constant)."""
    return carray(_stack_ptr_f64(n), n)


_STREAM_BYTES = 32  # one AVX vector: the widest non-temporal store every x86-64 CPU with AVX has
_X86 = platform.machine().lower() in ("x86_64", "amd64", "i386", "i686")


@intrinsic
def _stream_store(typingctx, dst, dst_offset, src, src_offset):
    """``_stream_store(dst, dst_offset, src, src_offset)``: the 32 bytes at byte
    ``src_offset`` of ``src``'s data to byte ``dst_offset`` of ``dst``'s data (which must
    be 32-byte aligned) in one non-temporal store (LLVM ``!nontemporal``)."""
    if not (isinstance(dst, types.Array) and isinstance(src, types.Array)):
        return None
    if not (isinstance(dst_offset, types.Integer) and isinstance(src_offset, types.Integer)):
        return None

    def codegen(context, builder, sig, args):
        d = context.make_array(sig.args[0])(context, builder, args[0])
        s = context.make_array(sig.args[2])(context, builder, args[2])
        i8p = ir.IntType(8).as_pointer()
        vec = ir.VectorType(ir.IntType(8), _STREAM_BYTES)
        sp = builder.bitcast(builder.gep(builder.bitcast(s.data, i8p), [args[3]]), vec.as_pointer())
        dp = builder.bitcast(builder.gep(builder.bitcast(d.data, i8p), [args[1]]), vec.as_pointer())
        store = builder.store(builder.load(sp, align=1), dp, align=_STREAM_BYTES)
        store.set_metadata("nontemporal", builder.module.add_metadata([ir.IntType(32)(1)]))
        return context.get_dummy_value()

    return types.none(dst, dst_offset, src, src_offset), codegen


@intrinsic
def _store_fence(typingctx):
    """``_store_fence()``: order the non-temporal stores before it before every later
    store (x86 ``sfence``; a full fence elsewhere), so that they are seen as ordinary
    stores are (by another thread, by the caller)."""

    def codegen(context, builder, sig, args):
        if _X86:
            fnty = ir.FunctionType(ir.VoidType(), [])
            builder.call(cgutils.get_or_insert_function(builder.module, fnty, "llvm.x86.sse.sfence"), [])
        else:
            builder.fence("seq_cst")
        return context.get_dummy_value()

    return types.none(), codegen


@kernel
def stream_row(src, srow, dst, drow):
    """``dst[drow, :] = src[srow, :]`` (2-D arrays of one dtype and row length, rows
    contiguous) in non-temporal stores: the lines of ``dst``'s row are written to memory
    without being read first and without evicting what the cache holds. For a row of a
    buffer much larger than the cache that nobody reads soon; ``src`` should be in the
    cache (a scratch row). The bytes before the first 32-byte boundary of the row and
    after the last are copied with ordinary stores. Ends with a store fence: when it
    returns, the row reads as if written with ordinary stores, from any thread."""
    n = src.shape[1]
    size = dst.itemsize
    doff = drow * dst.strides[0]
    soff = srow * src.strides[0]
    base = np.int64(dst.ctypes.data) + doff
    head = ((_STREAM_BYTES - base % _STREAM_BYTES) % _STREAM_BYTES) // size
    if head > n or base % size != 0 or _STREAM_BYTES % size != 0:  # no aligned middle: no streaming
        head = n
    for j in range(head):
        dst[drow, j] = src[srow, j]
    per = _STREAM_BYTES // size
    chunks = (n - head) // per
    doff += head * size
    soff += head * size
    for k in range(chunks):
        _stream_store(dst, doff + k * _STREAM_BYTES, src, soff + k * _STREAM_BYTES)
    for j in range(head + chunks * per, n):
        dst[drow, j] = src[srow, j]
    _store_fence()


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


@kernel(inline="always")
def prefetch_row(arr, row):
    """:func:`prefetch` every cache line of row ``row`` (along the first axis) of the
    C-contiguous array ``arr``: a hint, never a fault, for any ``row``."""
    size = arr.strides[0]
    start = row * size
    for b in range(0, size, 64):
        prefetch(arr, start + b)
    prefetch(arr, start + size - 1)  # the last line, where the row does not start one


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


@intrinsic
def store_bits_row(typingctx, arr, row, start, word, width):
    """``store_bits_row(arr, row, start, word, width)``: write bit j of ``word`` (0 or 1)
    to ``arr[row, start + j]`` for j < ``width`` (a literal 8, 16, 32 or 64) in one vector
    store: the inverse of :func:`nonzero_bits_row`. ``arr``: 2-D C-contiguous int8 /
    uint8; the bytes written must lie inside row ``row`` (unchecked)."""
    if not (
        isinstance(arr, types.Array)
        and arr.ndim == 2
        and arr.layout == "C"
        and arr.dtype in (types.int8, types.uint8)
        and isinstance(row, types.Integer)
        and isinstance(start, types.Integer)
        and isinstance(word, types.Integer)
        and isinstance(width, types.IntegerLiteral)
        and width.literal_value in _BYTE_WIDTHS
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


def write_bits_row(bits, out, row, n):
    """Write entries ``0 .. n - 1`` of row ``row`` of ``out`` ((B, >= n) int8 / uint8) as
    0 / 1 from the action bit set ``bits`` ((ceil(n / 64),) uint64). Every entry is written
    once (the last 8 may be written twice, with the same values). On a C-contiguous byte
    array and ``n >= 8``: whole words and a tail of 32 / 16 / 8 in vector stores
    (:func:`store_bits_row`); otherwise entry by entry. Compiled code only (a kernel)."""
    raise NotImplementedError("write_bits_row is called from compiled kernels")


def read_bits_row(masks, row, n, bits):
    """Read entries ``0 .. n - 1`` of row ``row`` of ``masks`` (2-D int8 / uint8 / bool)
    into the action bit set ``bits`` ((ceil(n / 64),) uint64; bit set where the entry is
    nonzero) and return the number of nonzero entries (int64): the inverse of
    :func:`write_bits_row`, in vector loads on a C-contiguous array with ``n >= 8``.
    Compiled code only (a kernel)."""
    raise NotImplementedError("read_bits_row is called from compiled kernels")


# the kernels' options (the caller's cache holds the compiled helper)
_OVERLOAD_OPTIONS = {k: v for k, v in NUMBA_OPTIONS.items() if k != "cache"}


@overload(write_bits_row, jit_options=_OVERLOAD_OPTIONS)
def _write_bits_row(bits, out, row, n):
    if not _byte_array(out, 2) or out.dtype == types.boolean:

        def by_entry(bits, out, row, n):
            for a in range(n):
                out[row, a] = (bits[a >> 6] >> np.uint64(a & 63)) & np.uint64(1)

        return by_entry

    def vector(bits, out, row, n):
        full = n >> 6
        for k in range(full):
            store_bits_row(out, row, 64 * k, bits[k], 64)
        base = 64 * full
        if n > base:
            w = bits[full]
            pos = base
            if n - pos >= 32:
                store_bits_row(out, row, pos, w, 32)
                pos += 32
            if n - pos >= 16:
                store_bits_row(out, row, pos, w >> np.uint64(pos - base), 16)
                pos += 16
            if n - pos >= 8:
                store_bits_row(out, row, pos, w >> np.uint64(pos - base), 8)
                pos += 8
            if n > pos:  # the last 8 entries, overlapping what is written
                s0 = n - 8
                if s0 >= base:
                    chunk = w >> np.uint64(s0 - base)
                else:
                    chunk = (bits[full - 1] >> np.uint64(s0 - base + 64)) | (w << np.uint64(base - s0))
                store_bits_row(out, row, s0, chunk, 8)

    return vector


@overload(read_bits_row, jit_options=_OVERLOAD_OPTIONS)
def _read_bits_row(masks, row, n, bits):
    if not _byte_array(masks, 2):

        def by_entry(masks, row, n, bits):
            count = 0
            for k in range((n + 63) >> 6):
                bits[k] = 0
            for a in range(n):
                if masks[row, a] != 0:
                    bits[a >> 6] |= np.uint64(1) << np.uint64(a & 63)
                    count += 1
            return count

        return by_entry

    def vector(masks, row, n, bits):
        full = n >> 6
        count = 0
        for k in range(full):
            bits[k] = nonzero_bits_row(masks, row, 64 * k, 64)
            count += np.int64(popcount(bits[k]))
        base = 64 * full
        if n > base:
            w = np.uint64(0)
            pos = base
            if n - pos >= 32:
                w |= nonzero_bits_row(masks, row, pos, 32)
                pos += 32
            if n - pos >= 16:
                w |= nonzero_bits_row(masks, row, pos, 16) << np.uint64(pos - base)
                pos += 16
            if n - pos >= 8:
                w |= nonzero_bits_row(masks, row, pos, 8) << np.uint64(pos - base)
                pos += 8
            if n > pos:  # the last 8 entries: keep those not read yet
                s0 = n - 8
                w |= (nonzero_bits_row(masks, row, s0, 8) >> np.uint64(pos - s0)) << np.uint64(pos - base)
            bits[full] = w
            count += np.int64(popcount(w))
        return count

    return vector


@intrinsic
def f32_bits(typingctx, x):
    """``f32_bits(x)``: the bits of float32 ``x`` as a uint32 (a bit cast, no conversion)."""
    if x != types.float32:
        return None

    def codegen(context, builder, sig, args):
        return builder.bitcast(args[0], ir.IntType(32))

    return types.uint32(x), codegen


@intrinsic
def f32_from_bits(typingctx, x):
    """``f32_from_bits(b)``: the float32 whose bits are uint32 ``b`` (a bit cast: LLVM
    vectorises it, where a view through an array would not)."""
    if x != types.uint32:
        return None

    def codegen(context, builder, sig, args):
        return builder.bitcast(args[0], ir.FloatType())

    return types.float32(x), codegen


@kernel(inline="always")
def bf16_bits(x):
    """The bfloat16 nearest to float32 ``x`` (ties to even), as int16 bits (finite ``x``;
    what ``torch``'s float32 to bfloat16 cast gives)."""
    b = np.int64(f32_bits(np.float32(x)))
    r = ((b + 0x7FFF + ((b >> 16) & 1)) >> 16) & 0xFFFF
    return np.int16(r - 0x10000 if r >= 0x8000 else r)


@kernel(inline="always")
def bf16_value(b):
    """The float32 value of bfloat16 int16 bits ``b`` (exact: a bfloat16 is the top half of
    a float32)."""
    return f32_from_bits(np.uint32(np.uint32(np.uint16(b)) << np.uint32(16)))
