"""The vectors the convolution kernels are written in (conv.py, conv_filter_rows.py, winograd.py).

Two widths. The *logical* vector is 64 bytes (16 float32 / 8 float64 lanes) on every machine: it
fixes the order of every sum - which output pixels a row kernel's chunk holds, how its kernel
columns alternate between accumulator sets, how lanes are added at the end of a filter gradient -
so a convolution gives the same bits on an AVX-512 and an AVX2 machine, and the same bits as the
shape-generic PyNative kernels (csrc/eager_generic.c, which take the order from this module). The
*physical* vector is the machine's (toolchain.vector_bytes(): 64 bytes with AVX-512, 32 with
AVX / AVX2, 16 otherwise): a logical vector is written as `pieces` physical ones, each lane in
exactly one of them, so every lane's chain of multiply-adds is the logical one. GCC lowers a
vector type wider than the target's registers through the stack: LeNet-5's 64-byte kernels ran
~5x slower on an AVX2 machine than these (docs/benchmarks.md, "AVX2").

Register tiles whose order is free (the channel tiles of the direct kernel, Winograd's products:
one chain per output) are sized by `accumulators()`, the registers a tile may keep its sums in.
"""
from __future__ import annotations

from pycompile.common import dtype as mstype
from pycompile.backend import toolchain

LOGICAL_BYTES = 64


def _itemsize(dt) -> int:
    return 4 if dt is mstype.float32 else 8


def logical_lanes(dt) -> int:
    """Lanes of the logical vector: 16 float32, 8 float64 (the order of the sums)."""
    return LOGICAL_BYTES // _itemsize(dt)


def width() -> int:
    """Bytes of the machine's vector (at most the logical vector's)."""
    return min(toolchain.vector_bytes(), LOGICAL_BYTES)


def lanes(dt) -> int:
    """Lanes of the machine's vector."""
    return width() // _itemsize(dt)


def pieces(dt) -> int:
    """Physical vectors per logical vector."""
    return logical_lanes(dt) // lanes(dt)


def vtype(dt) -> str:
    """The C type of one physical vector (csrc/pycompile_cnn.h): pc_v16f, pc_v8f, pc_v4f / pc_v8d,
    pc_v4d, pc_v2d."""
    return f"pc_v{lanes(dt)}{'f' if dt is mstype.float32 else 'd'}"


def itype(dt) -> str:
    """The integer vector of the same lanes and width (shuffle indices, masks)."""
    return f"pc_v{lanes(dt)}{'i' if dt is mstype.float32 else 'l'}"


def accumulators() -> int:
    """Physical vectors a register tile may keep sums in: 24 of AVX-512's 32 registers; 12 of the
    16 AVX2 / SSE have (the rest hold the loaded weights and the broadcast input)."""
    return 24 if width() >= 64 else 12
