"""Bit intrinsics numba does not expose: population count and trailing zeros of a ``uint64``."""
from llvmlite import ir
from numba import types
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
