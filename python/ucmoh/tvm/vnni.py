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

`space()` is MetaSchedule's default design space for a VNNI target with one
postprocessor more, `RejectVectorizedTensorize`: RewriteParallelVectorizeUnroll
may vectorize a loop around a tensorized block (the block's outer spatial
loop), and TVM 0.27 cannot build that ("Cannot broadcast lanes=16": the
intrinsic's operands are already vectors). Such a candidate can never run;
TVM tunes with it anyway and loses the trial (44 % of the VNNI candidates of
the first int8 collection). The postprocessor rejects it before it is built,
as TVM's own Verify* postprocessors reject candidates that cannot run, so the
search draws another. It adds no schedule instruction: traces replay without it.
"""
import tvm
import tvm.s_tir.meta_schedule as ms
from tvm.ir.utils import derived_object
from tvm.s_tir.meta_schedule.postproc import PyPostproc
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


_VECTORIZED = 2  # tvm.tirx.ForKind


def vectorizes_a_tensorized_block(stmt, inside_vectorized=False):
    """Whether a vectorized loop encloses a tensorized block (a block that
    binds its operands with match_buffer, as RewriteTensorize leaves it)."""
    name = type(stmt).__name__
    if name == "SeqStmt":
        return any(vectorizes_a_tensorized_block(child, inside_vectorized) for child in stmt.seq)
    if name == "SBlockRealize":
        block = stmt.block
        if inside_vectorized and len(block.match_buffers):
            return True
        return vectorizes_a_tensorized_block(block.body, inside_vectorized) or (
            block.init is not None and vectorizes_a_tensorized_block(block.init, inside_vectorized))
    if name == "For":
        return vectorizes_a_tensorized_block(stmt.body, inside_vectorized or int(stmt.kind) == _VECTORIZED)
    if name == "IfThenElse":
        return vectorizes_a_tensorized_block(stmt.then_case, inside_vectorized) or (
            stmt.else_case is not None and vectorizes_a_tensorized_block(stmt.else_case, inside_vectorized))
    if hasattr(stmt, "body") and name not in ("BufferStore", "Evaluate"):
        return vectorizes_a_tensorized_block(stmt.body, inside_vectorized)
    return False


@derived_object
class RejectVectorizedTensorize(PyPostproc):
    """Rejects a candidate with a vectorized loop around a tensorized block."""

    def _initialize_with_tune_context(self, context):
        pass

    def apply(self, sch):
        return not any(vectorizes_a_tensorized_block(func.body) for func in sch.mod.functions.values()
                       if hasattr(func, "body"))

    def clone(self):
        return RejectVectorizedTensorize()


def space(mod, target):
    """MetaSchedule's default design space for `target`, its postprocessors
    followed by RejectVectorizedTensorize."""
    defaults = ms.TuneContext(mod=mod, target=target, space_generator="post-order-apply", num_threads=1)
    generator = defaults.space_generator
    return ms.space_generator.PostOrderApply(sch_rules=list(generator.sch_rules),
                                             postprocs=list(generator.postprocs) + [RejectVectorizedTensorize()],
                                             mutator_probs=dict(generator.mutator_probs))
