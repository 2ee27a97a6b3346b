"""Bit helpers for kernels: the intrinsics numba does not expose (population count and
trailing zeros of a ``uint64``) and seat masks (bit s = seat s)."""

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic


@intrinsic
def popcount64(typingctx, x):
    """Number of set bits of a uint64 (LLVM ``ctpop``: one instruction on x86-64 with POPCNT)."""
    if not isinstance(x, types.Integer):
        return None
    sig = types.uint64(types.uint64)

    def codegen(context, builder, signature, args):
        value = context.cast(builder, args[0], x, types.uint64)
        fn = builder.module.declare_intrinsic("llvm.ctpop", [ir.IntType(64)])
        return builder.call(fn, [value])

    return sig, codegen


@intrinsic
def trailing_zeros64(typingctx, x):
    """Index of the lowest set bit of a uint64 (LLVM ``cttz``; 64 for zero)."""
    if not isinstance(x, types.Integer):
        return None
    sig = types.int64(types.uint64)

    def codegen(context, builder, signature, args):
        value = context.cast(builder, args[0], x, types.uint64)
        fn = builder.module.declare_intrinsic("llvm.cttz", [ir.IntType(64), ir.IntType(1)])
        return builder.call(fn, [value, ir.Constant(ir.IntType(1), 0)])

    return sig, codegen


# Seat masks: bit s of a uint64 is seat s (tables have at most 64 seats).
_ONE = np.uint64(1)


@njit(cache=True, inline="always")
def seat_bit(s):
    """The mask of seat ``s`` alone."""
    return _ONE << np.uint64(s)


@njit(cache=True, inline="always")
def seat_in(mask, s):
    """All ones (int64 -1) when seat ``s`` is in ``mask``, else 0: a multiplier-free select."""
    return -np.int64((mask >> np.uint64(s)) & _ONE)
