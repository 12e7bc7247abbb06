"""The plugins' template inputs (docs/ast-json.md) read off a converted loop nest.

cpu_gemm (x86, arm): the micro-kernel (mr x nr_vec vectors, k unroll), the
cache blocking (kc, mc, nc), packing and threads, from the nest of the main
multiply-accumulate block. tensorcore: the CUTLASS-like kernel shape (threads,
warp tile, pipeline stages, shared memory and register footprints, alignment)
from the thread bindings and the copies into shared memory. These are
estimates of what the plugins' own lowerings compute exactly; docs/compilers.md
says which ones are approximations.
"""
import numpy as np

from .intrinsics import DTYPES
from .tir_exprs import buffer_of, id_of, vars_in


def _extent(loops):
    return int(np.prod([l.extent for l in loops])) if loops else 1


class _Bindings:
    """Which loop variables feed a block's reduction iterators, and which the
    iterators indexing the last axis of its output (read once per block: the
    converter asks for every loop of every candidate)."""

    def __init__(self, realize):
        block = realize.block
        last = vars_in(block.writes[0].region[-1].min)
        self.reduction, self.last_axis = set(), set()
        for iv, value in zip(block.iter_vars, realize.iter_values):
            loops = vars_in(value)
            if int(iv.iter_type) == 2:
                self.reduction |= loops
            if id_of(iv.var) in last:
                self.last_axis |= loops


def _is_reduction(loop, bindings):
    return loop.id in bindings.reduction


def _along_last_axis(loop, bindings):
    return loop.id in bindings.last_axis


def gemm_inputs(c):
    """cpu_gemm's inputs from the nest of the block with the most reduction loops."""
    nests = [(loops, realize, tensor, _Bindings(realize)) for loops, realize, tensor in c.computes]
    loops, realize, tensor, bindings = max(nests, key=lambda n: len([l for l in n[0] if _is_reduction(l, n[3])]))
    reduction_at = [i for i, l in enumerate(loops) if _is_reduction(l, bindings)]
    reduction = [loops[i] for i in reduction_at]
    inner = loops[reduction_at[-1] + 1:] if reduction_at else []
    vector = [l for l in loops if l.kind == 2]
    parallel = [l for l in loops if l.kind == 1]
    cores = int(c.target.attrs.get("num-cores", 1) or 1)
    lanes, k_per_call = (tensor.lanes, tensor.k_per_call) if tensor else (c.lanes, 1)
    if tensor:  # one call covers `lanes` outputs; inner loops along the output's last axis add vectors
        along_n = [l for l in inner if _along_last_axis(l, bindings)]
        mr, nr_vec = _extent([l for l in inner if not _along_last_axis(l, bindings)]), _extent(along_n)
        nc = nr_vec * lanes
    else:
        mr = _extent([l for l in inner if l.kind != 2])
        nr_vec = max(1, (vector[-1].extent if vector else 1) // lanes)
        nc = vector[-1].extent if vector else 1
    unrolled_k = [l for l in reduction if l.kind == 3]
    writes = {buffer_of(w).name for w in realize.block.writes}
    operands = [buffer_of(r).name for r in realize.block.reads if buffer_of(r).name not in writes]
    packed = [int(name in c.copied) for name in operands[:2]] + [0, 0]
    kc = _extent(reduction[1:]) if len(reduction) > 1 else _extent(reduction)
    return {"pack_a": packed[0], "pack_b": packed[1], "k_unroll": _extent(unrolled_k), "mr": mr,
            "nr_vec": nr_vec, "kc": kc * k_per_call, "mc": mr, "nc": nc,
            "threads": max(1, min(_extent(parallel), cores))}


def tensorcore_inputs(c):
    """tensorcore's inputs: threads, warp tile, stages, shared and register bytes, alignment."""
    loops, realize, tensor = c.computes[-1]
    bindings = _Bindings(realize)
    threads = {}
    for l in _all_loops(c):
        if l.kind == 4 and str(l.node.thread_binding.thread_tag).startswith("threadIdx"):
            tag = str(l.node.thread_binding.thread_tag)
            threads[tag] = max(threads.get(tag, 1), l.extent)
    bound = [i for i, l in enumerate(loops) if l.kind == 4]
    per_warp = loops[bound[-1] + 1:] if bound else loops
    spatial = [l for l in per_warp if not _is_reduction(l, bindings)]
    along_n = [l for l in spatial if _along_last_axis(l, bindings)]
    tile = (16, 16)  # every TVM tensor-core intrinsic (wmma 16x16x16, mma as two m16n8 calls) writes 16 x 16
    warp_m, warp_n = _extent([l for l in spatial if not _along_last_axis(l, bindings)]) * tile[0], _extent(along_n) * tile[1]
    block_threads = int(np.prod(list(threads.values()))) if threads else 32
    stages = max([_stages(l) for l in _all_loops(c)] or [1])
    acc_bytes = 4 if c.buffers[_write_name(realize)]["dtype"] in ("f32", "s32") else 2
    registers = 32 + (warp_m * warp_n * acc_bytes + (warp_m + warp_n) * 16 * 2) // (32 * 4)
    return {"pipeline_stages": stages, "alignment": _alignment(c), "iterator_optimized": 0,
            "warp_tile_m": warp_m, "warp_tile_n": warp_n, "split_k_slices": 1,
            "threads_per_block": block_threads, "shared_bytes": _shared_bytes(c), "registers_per_thread": min(255, registers)}


def _write_name(realize):
    return buffer_of(realize.block.writes[0]).name


def _all_loops(c):
    seen = {}
    for loops, _, *_ in c.computes + c.copies:
        for l in loops:
            seen[l.id] = l
    return list(seen.values())


def _stages(loop):
    stages = loop.node.annotations.get("software_pipeline_stage")
    return max(int(s) for s in stages) + 1 if stages else 1


def _shared_bytes(c):
    """Each copy into shared memory: what one thread block writes per iteration of the
    loop that carries it (the pipelined loop, times its stages, or the grid)."""
    total = 0
    for loops, realize, width in c.copies:
        buffer = buffer_of(realize.block.writes[0])
        if c.buffers[buffer.name]["scope"] != "shared":
            continue
        inside, factor = [], 1
        for l in reversed(loops):
            if _stages(l) > 1 or (l.kind == 4 and str(l.node.thread_binding.thread_tag).startswith("blockIdx")):
                factor = _stages(l)
                break
            inside.append(l)
        elements = int(np.prod([int(r.extent.value) for r in realize.block.writes[0].region]))
        total += elements * _extent(inside) * factor * DTYPES[str(buffer.dtype)][1]
    return total


def _alignment(c):
    """Elements per vector load of the copies from global memory (CUTLASS's alignment)."""
    widths = [width for _, realize, width in c.copies
              if any(c.buffers[buffer_of(r).name]["scope"] == "global" for r in realize.block.reads)]
    return min(widths) if widths else 1
