"""TVM 0.27's `dot_16x4_vnni`, re-registered so that it builds.

TVM's x86 VNNI tensor intrinsic (tvm/s_tir/tensor_intrin/x86.py) calls
llvm.x86.avx512.vpdpbusd.512 with <16 x i32> operands, the signature of LLVM
before 20. The LLVM inside apache-tvm 0.27 declares <64 x i8> operands, so
every VNNI-tensorized candidate fails to build ("Call parameter type does not
match function signature"). This registers the same description with an
implementation that reinterprets the operands as 64 bytes. Traces name the
intrinsic, so every process that replays int8 traces (the collector, the
baselines) calls `register()` first; the calls it emits are the ones the
converter recognizes (intrinsics.py).
"""
from tvm.script import tirx as T

_NAME = "dot_16x4_vnni"


@T.prim_func(s_tir=True)
def _dot_16x4_vnni(
    A: T.Buffer((4,), "uint8", offset_factor=1),
    B: T.Buffer((16, 4), "int8", offset_factor=1),
    C: T.Buffer((16,), "int32", offset_factor=1),
) -> None:
    with T.sblock("root"):
        T.reads(C[0:16], A[0:4], B[0:16, 0:4])
        T.writes(C[0:16])
        A_i32 = T.reinterpret(A.vload([0], "uint8x4"), dtype="int32")
        A_u8x64 = T.reinterpret(T.broadcast(A_i32, 16), dtype="uint8x64")
        B_i8x64 = B.vload([0, 0], dtype="int8x64")
        C_i32x16 = C.vload([0], dtype="int32x16")
        C[T.ramp(T.int32(0), 1, 16)] = T.call_llvm_pure_intrin(
            T.llvm_lookup_intrinsic_id("llvm.x86.avx512.vpdpbusd.512"), C_i32x16, A_u8x64, B_i8x64,
            dtype="int32x16")


def register():
    """Overrides TVM's dot_16x4_vnni with the 64-byte-operand implementation (idempotent)."""
    from tvm.s_tir import TensorIntrin
    from tvm.s_tir.tensor_intrin import x86  # registers TVM's own first

    TensorIntrin.register(_NAME, x86.dot_product_16x4_u8i8i32_desc, _dot_16x4_vnni, override=True)
