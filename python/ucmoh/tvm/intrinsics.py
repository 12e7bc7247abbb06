"""Which UCMoH intrinsic a TIR block computes with.

A block that MetaSchedule (or a hand schedule) tensorized carries its tensor
intrinsic's implementation as calls: LLVM intrinsics on CPUs (VNNI
`vpdpbusd`, ARM `sdot`), warp-wide matrix operations on CUDA (`tvm_mma_sync`
for wmma, `ptx_mma` for mma). An untensorized block is a scalar statement that
the target's vector unit runs (fp32 FMA: x86.avx2 / x86.avx512 / arm.neon).
Calls with no registered UCMoH intrinsic are refused by name.
"""
import functools
import json
from dataclasses import dataclass

import tvm

from .tir_exprs import UnsupportedTIR, buffer_of


@dataclass(frozen=True)
class TensorCall:
    """One tensorized block's intrinsic: how many calls it makes per execution,
    the work of one call, and (CPU) the output lanes and reduction depth of one call."""
    intrinsic: str
    calls: int
    flops_per_call: int
    lanes: int = 1
    k_per_call: int = 1


# LLVM intrinsics of TVM's CPU tensor intrinsics (tvm.s_tir.tensor_intrin.x86 / arm_cpu).
_LLVM = {
    "llvm.x86.avx512.vpdpbusd.512": TensorCall("x86.vnni", 1, 2 * 16 * 4, lanes=16, k_per_call=4),
    "llvm.aarch64.neon.sdot": TensorCall("arm.sdot", 1, 2 * 4 * 4, lanes=4, k_per_call=4),
}

# Tensor-core shapes (m, n, k) and dtypes (input, accumulator) -> the tensorcore plugin's intrinsics.
_MMA = {
    ((16, 8, 8), "f16", "f16"): "tensorcore.h1688", ((16, 8, 8), "f16", "f32"): "tensorcore.s1688",
    ((16, 8, 16), "f16", "f16"): "tensorcore.h16816", ((16, 8, 16), "f16", "f32"): "tensorcore.s16816",
    ((8, 8, 16), "s8", "s32"): "tensorcore.i8816", ((16, 8, 32), "s8", "s32"): "tensorcore.i16832",
}
# A 16x16x16 wmma runs as tensor-core mma instructions of these shapes (sm_80).
_WMMA_AS = {("f16", "f16"): (16, 8, 16), ("f16", "f32"): (16, 8, 16), ("s8", "s32"): (8, 8, 16)}

DTYPES = {"float32": ("f32", 4), "float16": ("f16", 2), "bfloat16": ("bf16", 2), "float64": ("f64", 8),
          "int8": ("s8", 1), "uint8": ("u8", 1), "int32": ("s32", 4), "uint32": ("u32", 4), "int16": ("s16", 2)}
_PTX_DTYPES = {"fp16": "f16", "fp32": "f32", "int8": "s8", "int32": "s32"}

# Builtins that move tensor-core fragments (copies) or fill them (initialisation).
COPY_CALLS = {"tirx.tvm_load_matrix_sync", "tirx.tvm_store_matrix_sync", "tirx.ptx_ldmatrix", "tirx.mma_store",
              "tirx.ptx_legacy.ldmatrix", "tirx.ptx_legacy.mma_store"}
INIT_CALLS = {"tirx.tvm_fill_fragment", "tirx.mma_fill", "tirx.ptx_legacy.mma_fill"}
_LLVM_CALLS = {"tirx.call_llvm_pure_intrin", "tirx.call_llvm_intrin"}


def vector_intrinsic(target):
    """The fp32 FMA intrinsic of an LLVM CPU target and its fp32 lanes."""
    if target.kind.name != "llvm":
        raise UnsupportedTIR(f"target kind '{target.kind.name}' without a tensorized block: "
                             "only LLVM CPU targets have a vector FMA intrinsic")
    attrs = " ".join(str(target.attrs.get(k, "")) for k in ("mtriple", "mcpu", "mattr"))
    if "aarch64" in attrs or "arm64" in attrs:
        return "arm.neon", 4
    if "avx512" in attrs or _llvm_has_avx512(target):
        return "x86.avx512", 16
    return "x86.avx2", 8


@functools.lru_cache(maxsize=64)
def _llvm_has_avx512_cached(target_json):
    return _llvm_has_avx512_uncached(tvm.target.Target(json.loads(target_json)))


def _llvm_has_avx512(target):
    """Asked once per target (LLVM takes about 1 ms to answer)."""
    return _llvm_has_avx512_cached(str(target))


def _llvm_has_avx512_uncached(target):
    """Whether LLVM's model of the target's CPU (-mcpu, -mattr) has AVX-512F:
    every CPU name LLVM knows (emeraldrapids, znver4, ...), not a list of ours."""
    try:
        return bool(tvm.target.codegen.llvm_cpu_has_features("avx512f", target))
    except Exception:  # an LLVM without x86 support, or a target it cannot parse
        return False


def tensor_call(block, calls, dtype_of):
    """The TensorCall of a tensorized block, or None for a scalar block. `calls`
    are the Calls under its body (tir_exprs.calls_in); `dtype_of(buffer)` gives
    a buffer's UCMoH dtype."""
    found = []
    for call in calls:
        op = call.op.name
        if op in _LLVM_CALLS:
            found.append(_llvm_call(block, call))
        elif op == "tirx.tvm_mma_sync":
            found.append(_wmma_call(block, dtype_of))
        elif op.endswith("ptx_mma") or op.endswith("ptx_legacy.mma"):
            found.append(_ptx_mma_call(block, call))
    if not found:
        return None
    if len({f.intrinsic for f in found}) > 1:
        raise UnsupportedTIR(f"block '{block.name_hint}' calls two intrinsics: {sorted({f.intrinsic for f in found})}")
    return TensorCall(found[0].intrinsic, sum(f.calls for f in found), found[0].flops_per_call,
                      found[0].lanes, found[0].k_per_call)


def _llvm_call(block, call):
    name = tvm.target.codegen.llvm_get_intrinsic_name(int(call.args[0].value))
    for prefix, known in _LLVM.items():
        if name == prefix or name.startswith(prefix + "."):
            return known
    raise UnsupportedTIR(f"block '{block.name_hint}' calls {name}: no registered UCMoH intrinsic computes it "
                         f"(known: {', '.join(sorted(_LLVM))})")


def _wmma_call(block, dtype_of):
    reads = [buffer_of(r) for r in block.reads]
    accumulator = buffer_of(block.writes[0])
    operand = next(b for b in reads if not b.same_as(accumulator))
    types = (dtype_of(operand), dtype_of(accumulator))
    if types not in _WMMA_AS:
        raise UnsupportedTIR(f"block '{block.name_hint}': wmma on {types[0]} -> {types[1]} has no tensorcore intrinsic")
    m, n, k = _WMMA_AS[types]
    return TensorCall(_MMA[((m, n, k), *types)], (16 * 16 * 16) // (m * n * k), 2 * m * n * k)


def _ptx_mma_call(block, call):
    shape = str(call.args[0].value)  # "m16n8k16"
    m, rest = shape[1:].split("n")
    n, k = rest.split("k")
    key = ((int(m), int(n), int(k)), _PTX_DTYPES.get(str(call.args[3].value)),
           _PTX_DTYPES.get(str(call.args[5].value)))
    if key not in _MMA:
        raise UnsupportedTIR(f"block '{block.name_hint}': mma {shape} {key[1]} -> {key[2]} has no tensorcore intrinsic")
    return TensorCall(_MMA[key], 1, 2 * int(m) * int(n) * int(k))
