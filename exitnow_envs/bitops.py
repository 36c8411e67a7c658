"""Small numba intrinsics for the per-step kernels: population count, trailing zeros,
fixed-size scratch arrays on the stack (a per-step kernel must not allocate: ``np.empty``
in a kernel costs tens of nanoseconds, a stack array nothing) and a prefetch hint.

* ``popcount(x)`` / ``ctz(x)``: LLVM's ``ctpop`` / ``cttz`` on an unsigned integer
  (``ctz(0)`` is the bit width).
* ``stack_u64(n)``: an uninitialised ``(n,)`` uint64 array in the calling kernel's stack
  frame; ``n`` must be a compile-time constant (a literal or a module-level int, not an
  expression such as ``4 * N``: name it at module level). It lives until the calling
  function returns: never return it or keep it in an array.
* ``prefetch(arr, offset)``: LLVM's ``prefetch`` of the cache line at a byte offset of an
  array's data (a hint: never changes a result).
"""

from __future__ import annotations

from llvmlite import ir
from numba import carray, types
from numba.core import cgutils, errors
from numba.extending import intrinsic

from tabletop_core.jit import kernel

__all__ = ["popcount", "ctz", "stack_u64", "prefetch"]


@intrinsic
def popcount(typingctx, x):
    """Number of set bits of an unsigned integer (same type back)."""
    if not isinstance(x, types.Integer) or x.signed:
        return None

    def codegen(context, builder, sig, args):
        return builder.ctpop(args[0])

    return x(x), codegen


@intrinsic
def ctz(typingctx, x):
    """Index of the lowest set bit of an unsigned integer (the bit width for 0)."""
    if not isinstance(x, types.Integer) or x.signed:
        return None

    def codegen(context, builder, sig, args):
        return builder.cttz(args[0], context.get_constant(types.boolean, False))

    return x(x), codegen


@intrinsic
def _stack_ptr_u64(typingctx, n):
    if not isinstance(n, types.IntegerLiteral):
        raise errors.RequireLiteralValue(n)
    size = n.literal_value

    def codegen(context, builder, sig, args):
        # alloca_once: in the entry block, so the numba-inlined caller gets one fixed slot
        return cgutils.alloca_once(builder, context.get_data_type(types.uint64), size=size)

    return types.CPointer(types.uint64)(n), codegen


@kernel(inline="always")
def stack_u64(n):
    """An uninitialised ``(n,)`` uint64 array on the caller's stack (``n`` a constant)."""
    return carray(_stack_ptr_u64(n), n)


@intrinsic
def prefetch(typingctx, arr, offset):
    """Hint the CPU to fetch the cache line at byte ``offset`` of ``arr``'s data (for
    reading, into every cache level); no effect on any result."""
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
