"""ucmoh.tvm's TIR -> AST converter with apache-tvm 0.27 (run by tvm_test.sh):
for each intrinsic kind, TIR scheduled with TVM's own tensor intrinsics (or its
vectorizer, for the fp32 FMA units), checked for loop extents and kinds,
footprints, the intrinsic name, and that libucmoh scores the AST; and the
refusals, which name what they refuse."""
import os
import unittest

import numpy as np
import tvm
import tvm.s_tir as s_tir
import tvm.s_tir.tensor_intrin  # noqa: F401  registers TVM's tensor intrinsics
from tvm import te
from tvm.s_tir import dlight
from tvm.s_tir.dlight.gpu.matmul import MatmulTensorization
from tvm.script import tirx as T

import ucmoh
from ucmoh.tvm import UnsupportedTIR, tir_to_ast

REGISTRY, PLUGINS = os.environ["UCMOH_TEST_REGISTRY"], os.environ["UCMOH_TEST_PLUGINS"]
AVX2 = tvm.target.Target({"kind": "llvm", "mcpu": "core-avx2", "num-cores": 2})
AVX512 = tvm.target.Target({"kind": "llvm", "mcpu": "skylake-avx512", "num-cores": 2})
VNNI = tvm.target.Target({"kind": "llvm", "mcpu": "cascadelake", "num-cores": 4})
ARM = tvm.target.Target({"kind": "llvm", "mtriple": "aarch64-linux-gnu", "mattr": ["+neon", "+dotprod"],
                         "num-cores": 4})
CUDA = tvm.target.Target({"kind": "cuda", "arch": "sm_80"})


def matmul(n, dtype="float32", acc="float32"):
    a = te.placeholder((n, n), dtype, name="A")
    b = te.placeholder((n, n), dtype, name="B")
    k = te.reduce_axis((0, n), "k")
    c = te.compute((n, n), lambda i, j: te.sum(a[i, k].astype(acc) * b[k, j].astype(acc), axis=k), name="C")
    return tvm.IRModule({"main": te.create_prim_func([a, b, c])})


def blocked(mod):
    """i/4, j/16, k/32; parallel i_0, unrolled i_1, vectorized j_1."""
    sch = s_tir.Schedule(mod)
    i, j, k = sch.get_loops(sch.get_sblock("C"))
    i0, i1 = sch.split(i, [None, 4])
    j0, j1 = sch.split(j, [None, 16])
    k0, k1 = sch.split(k, [None, 32])
    sch.reorder(i0, j0, k0, k1, i1, j1)
    sch.parallel(i0)
    sch.vectorize(j1)
    sch.unroll(i1)
    return sch.mod["main"]


def int8_dense_workload(a_dtype, lanes, k_group, m=32, n=64, k=64):
    """int8_dense unscheduled."""
    x = te.placeholder((m, k), a_dtype, name="X")
    w = te.placeholder((n // lanes, k // k_group, lanes, k_group), "int8", name="W")
    r = te.reduce_axis((0, k), "k")
    c = te.compute((m, n), lambda i, j: te.sum(x[i, r].astype("int32") * w[j // lanes, r // k_group, j % lanes,
                                                                           r % k_group].astype("int32"), axis=r), name="C")
    return tvm.IRModule({"main": te.create_prim_func([x, w, c])})


def int8_dense(a_dtype, lanes, k_group, intrinsic, m=32, n=64, k=64):
    """C[m, n] (int32) += A[m, k] * W[n/lanes, k/k_group, lanes, k_group] (the packed
    layout of TVM's dot-product intrinsics), tensorized over (lanes, k_group)."""
    return int8_dense_schedule(a_dtype, lanes, k_group, intrinsic, m, n, k).mod["main"]


def int8_dense_schedule(a_dtype, lanes, k_group, intrinsic, m=32, n=64, k=64):
    """int8_dense's schedule of int8_dense_workload (its trace names the intrinsic)."""
    sch = s_tir.Schedule(int8_dense_workload(a_dtype, lanes, k_group, m, n, k))
    block = sch.get_sblock("C")
    i, j, kk = sch.get_loops(block)
    io, ii = sch.split(i, [None, 4])
    jo, ji = sch.split(j, [None, lanes])
    ko, ki = sch.split(kk, [None, k_group])
    sch.reorder(io, jo, ko, ii, ji, ki)
    sch.parallel(io)
    sch.decompose_reduction(block, ko)
    sch.tensorize(ji, intrinsic)
    return sch


@T.prim_func(s_tir=True)
def warp_mma(Ag: T.Buffer((32, 8), "float16"), Bg: T.Buffer((32, 8), "float16"), Cg: T.Buffer((32, 8), "float32")):
    """One warp's 16x16x16 f16 -> f32 product in the mma "warp" layout (TVM's
    mma_f16f16f32 description), fed and drained by plain copies."""
    A = T.sblock_alloc_buffer((32, 8), "float16", scope="warp")
    B = T.sblock_alloc_buffer((32, 8), "float16", scope="warp")
    C = T.sblock_alloc_buffer((32, 8), "float32", scope="warp")
    for t, e in T.grid(32, 8):
        with T.sblock("A_warp"):
            vt, ve = T.axis.remap("SS", [t, e])
            A[vt, ve] = Ag[vt, ve]
    for t, e in T.grid(32, 8):
        with T.sblock("B_warp"):
            vt, ve = T.axis.remap("SS", [t, e])
            B[vt, ve] = Bg[vt, ve]
    for i, j, k in T.grid(16, 16, 16):
        with T.sblock("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            C[4 * (vi % 8) + vj % 8 // 2, 4 * (vj // 8) + vi // 8 * 2 + vj % 2] = C[
                4 * (vi % 8) + vj % 8 // 2, 4 * (vj // 8) + vi // 8 * 2 + vj % 2] + T.Cast(
                "float32", A[4 * (vi % 8) + vk % 8 // 2, 4 * (vk // 8) + vi // 8 * 2 + vk % 2]) * T.Cast(
                "float32", B[4 * (vk % 8) + vj % 8 // 2, 4 * (vj // 8) + vk // 8 * 2 + vj % 2])
    for t, e in T.grid(32, 8):
        with T.sblock("C_global"):
            vt, ve = T.axis.remap("SS", [t, e])
            Cg[vt, ve] = C[vt, ve]


def walk(nodes, loops=(), out=None):
    """(enclosing loops as (var, extent, kind), stage) for every stage."""
    out = [] if out is None else out
    for n in nodes:
        if "loop" in n:
            walk(n["body"], loops + ((n["loop"]["var"], n["loop"]["extent"], n["loop"]["kind"]),), out)
        else:
            out.append((loops, n["stage"]))
    return out


def computes(ast):
    return [(loops, s) for loops, s in walk(ast["body"]) if s["kind"] == "compute"]


class CpuIntrinsics(unittest.TestCase):
    def test_blocked_fp32_matmul_on_avx2(self):
        ast = tir_to_ast(blocked(matmul(128)), AVX2)
        stages = walk(ast["body"])
        loops, _ = stages[0]
        self.assertEqual(loops, (("i_0", 32, "parallel"), ("j_0", 8, "serial"), ("k_0", 4, "serial"),
                                 ("k_1", 32, "serial"), ("i_1", 4, "unrolled")))
        by_name = {s["name"]: s for _, s in stages}
        self.assertEqual(by_name["load_A"]["bytes"], 4)      # one broadcast element per j vector
        self.assertEqual(by_name["load_B"]["bytes"], 64)     # 16 contiguous floats
        self.assertEqual(by_name["load_B"]["element_stride"], 1)
        self.assertEqual(by_name["store_C"]["bytes"], 64)
        self.assertEqual(by_name["C"]["intrinsic"], "x86.avx2")
        self.assertEqual(by_name["C"]["calls"], 2)            # 16 lanes = 2 ymm FMAs
        self.assertEqual(ast["template_inputs"], {"pack_a": 0, "pack_b": 0, "k_unroll": 1, "mr": 4, "nr_vec": 2,
                                                  "kc": 32, "mc": 4, "nc": 16, "threads": 2})
        self.assertEqual([b["name"] for b in ast["buffers"]], ["A", "B", "C"])

    def test_loop_strides_say_where_data_is_reused(self):
        """Bytes each enclosing loop (i_0 j_0 k_0 k_1 i_1) moves an access of
        C[i, j] += A[i, k] * B[k, j] (n 128, f32): 0 where the data is reused."""
        by_name = {s["name"]: s for _, s in walk(tir_to_ast(blocked(matmul(128)), AVX2)["body"])}
        row = 128 * 4
        self.assertEqual(by_name["load_A"]["loop_stride_bytes"], [4 * row, 0, 32 * 4, 4, row])
        self.assertEqual(by_name["load_B"]["loop_stride_bytes"], [0, 16 * 4, 32 * row, row, 0])
        self.assertEqual(by_name["store_C"]["loop_stride_bytes"], [4 * row, 16 * 4, 0, 0, row])

    def test_loop_strides_see_through_blockized_blocks(self):
        """A blockized block (MetaSchedule's `_o` blocks) binds the inner block's
        variables to its own: the strides along the outer loops come through
        them, the same as without the extra block."""
        plain = blocked(matmul(128))
        sch = s_tir.Schedule(plain)
        sch.blockize(sch.get_loops(sch.get_sblock("C"))[3])  # k_1 and inside: block "C_o" around "C"
        self.assertIn("C_o", sch.mod["main"].script())
        strides = [{s["name"]: s["loop_stride_bytes"] for _, s in walk(tir_to_ast(f, AVX2)["body"]) if "buffer" in s}
                   for f in (plain, sch.mod["main"])]
        self.assertEqual(strides[0], {name: strides[1][name] for name in strides[0]})  # C_o also reads C

    def test_avx512_fp32_fma(self):
        ast = tir_to_ast(blocked(matmul(128)), AVX512)
        [(loops, compute)] = computes(ast)
        self.assertEqual((compute["intrinsic"], compute["calls"], compute["flops_per_call"]), ("x86.avx512", 1, 32))
        self.assertEqual(ast["template_inputs"]["nr_vec"], 1)  # 16 lanes = one zmm

    def test_neon_fp32_fma(self):
        ast = tir_to_ast(blocked(matmul(128)), ARM)
        [(loops, compute)] = computes(ast)
        self.assertEqual((compute["intrinsic"], compute["calls"], compute["flops_per_call"]), ("arm.neon", 4, 8))
        self.assertEqual(ast["template_inputs"]["nr_vec"], 4)  # 16 lanes = four 128-bit vectors

    def check_dot_product(self, ast, intrinsic, lanes, k_group):
        [(loops, compute)] = computes(ast)
        self.assertEqual([(e, k) for _, e, k in loops], [(8, "parallel"), (64 // lanes, "serial"),
                                                         (64 // k_group, "serial"), (4, "serial")])
        self.assertEqual((compute["intrinsic"], compute["calls"], compute["flops_per_call"]),
                         (intrinsic, 1, 2 * lanes * k_group))
        stages = {s["name"]: s for l, s in walk(ast["body"]) if l == loops}
        self.assertEqual(stages["load_X"]["bytes"], k_group)              # k_group int8 of one row
        self.assertEqual(stages["load_W"]["bytes"], lanes * k_group)      # a packed lanes x k_group tile
        self.assertEqual(stages["load_W"]["vector_bytes"], lanes * k_group)  # one zmm (VNNI) / q register (SDOT)
        self.assertEqual(stages["store_C"]["bytes"], 4 * lanes)           # lanes int32 accumulators
        inputs = ast["template_inputs"]
        self.assertEqual((inputs["mr"], inputs["nr_vec"], inputs["kc"], inputs["nc"]), (4, 1, 64, lanes))
        self.assertEqual({b["name"]: b["dtype"] for b in ast["buffers"]}["C"], "s32")

    def test_x86_vnni(self):
        self.check_dot_product(tir_to_ast(int8_dense("uint8", 16, 4, "dot_16x4_vnni"), VNNI), "x86.vnni", 16, 4)

    def test_arm_sdot(self):
        self.check_dot_product(tir_to_ast(int8_dense("int8", 4, 4, "dot_4x4_i8i8s32_sdot"), ARM), "arm.sdot", 4, 4)


class Epilogues(unittest.TestCase):
    def test_fused_bias_and_relu_are_their_loads_and_stores(self):
        x = te.placeholder((64, 64), "float32", name="X")
        w = te.placeholder((64, 64), "float32", name="W")
        bias = te.placeholder((64,), "float32", name="bias")
        k = te.reduce_axis((0, 64), "k")
        y = te.compute((64, 64), lambda i, j: te.sum(x[i, k] * w[j, k], axis=k), name="Y")
        z = te.compute((64, 64), lambda i, j: te.max(y[i, j] * 0.5 + bias[j], tvm.tirx.const(0, "float32")), name="Z")
        ast = tir_to_ast(te.create_prim_func([x, w, bias, z]), AVX2)
        stages = [s for _, s in walk(ast["body"])]
        self.assertEqual([s["intrinsic"] for s in stages if s["kind"] == "compute"], ["x86.avx2"])  # only Y's
        self.assertEqual([s["name"] for s in stages if s["name"].endswith("_Z") or s["name"] == "load_bias"],
                         ["load_bias", "store_Z"])

    def test_padding_is_a_copy_with_a_condition(self):
        data = te.placeholder((1, 8, 8, 4), "float32", name="I")
        padded = te.compute((1, 10, 10, 4), lambda n, h, w, c: tvm.tirx.if_then_else(
            tvm.tirx.all(h >= 1, h < 9, w >= 1, w < 9), data[n, h - 1, w - 1, c], tvm.tirx.const(0.0, "float32")),
            name="pad")
        weight = te.placeholder((3, 3, 4, 8), "float32", name="F")
        r, s_, c = te.reduce_axis((0, 3), "r"), te.reduce_axis((0, 3), "s"), te.reduce_axis((0, 4), "c")
        out = te.compute((1, 8, 8, 8), lambda n, h, w, f: te.sum(padded[n, h + r, w + s_, c] * weight[r, s_, c, f],
                                                                 axis=[r, s_, c]), name="O")
        ast = tir_to_ast(te.create_prim_func([data, weight, out]), AVX2)
        names = [s["name"] for _, s in walk(ast["body"])]
        self.assertEqual(names[:2], ["load_I", "store_pad"])
        self.assertEqual(len([n for n in names if n == "O"]), 1)


class GpuIntrinsics(unittest.TestCase):
    def test_cuda_wmma(self):
        a = te.placeholder((256, 256), "float16", name="A")
        b = te.placeholder((256, 256), "float16", name="B")
        r = te.reduce_axis((0, 256), "k")
        c = te.compute((256, 256), lambda i, j: te.sum(a[i, r].astype("float32") * b[j, r].astype("float32"), axis=r),
                       name="C")
        with CUDA:
            mod = dlight.ApplyDefaultSchedule(MatmulTensorization())(tvm.IRModule({"main": te.create_prim_func([a, b, c])}))
        ast = tir_to_ast(mod["main"], CUDA)
        [(loops, compute)] = computes(ast)
        self.assertEqual((compute["intrinsic"], compute["calls"]), ("tensorcore.s16816", 2))  # 16x16x16 = 2 m16n8k16
        self.assertEqual([k for _, _, k in loops][:4], ["gpu_grid", "gpu_grid", "gpu_grid", "gpu_warp"])
        self.assertIn("pipelined", [k for _, _, k in loops])
        stages = {s["name"]: s for l, s in walk(ast["body"]) if l == loops}
        self.assertEqual(stages["load_A_reindex_shared.dyn_wmma.matrix_a"]["bytes"], 16 * 16 * 2)
        self.assertEqual(stages["store_C_reindex_shared.dyn_wmma.accumulator"]["bytes"], 16 * 16 * 4)
        inputs = ast["template_inputs"]
        self.assertEqual(inputs["threads_per_block"], 16 * 32)
        self.assertEqual(inputs["pipeline_stages"], 2)
        self.assertEqual((inputs["warp_tile_m"], inputs["warp_tile_n"]), (32, 32))  # 2 x 2 wmma tiles per warp
        self.assertEqual(inputs["alignment"], 4)
        scopes = {b["name"]: b["scope"] for b in ast["buffers"]}
        self.assertEqual((scopes["A"], scopes["A_reindex_shared.dyn"], scopes["A_reindex_shared.dyn_wmma.matrix_a"]),
                         ("global", "shared", "register"))

    def test_cuda_mma(self):
        sch = s_tir.Schedule(warp_mma)
        sch.tensorize(sch.get_loops(sch.get_sblock("C"))[0], "mma_f16f16f32")
        ast = tir_to_ast(sch.mod["main"], CUDA)
        [(loops, compute)] = computes(ast)
        self.assertEqual((compute["intrinsic"], compute["calls"], compute["flops_per_call"]),
                         ("tensorcore.s16816", 2, 2 * 16 * 8 * 16))
        self.assertEqual(loops, ())
        stages = {s["name"]: s for l, s in walk(ast["body"]) if l == loops}
        self.assertEqual((stages["load_A"]["bytes"], stages["store_C"]["bytes"]), (32 * 8 * 2, 32 * 8 * 4))
        self.assertEqual(ast["template_inputs"]["threads_per_block"], 32)


class Scoring(unittest.TestCase):
    def test_library_scores_every_kind(self):
        sch = s_tir.Schedule(warp_mma)
        sch.tensorize(sch.get_loops(sch.get_sblock("C"))[0], "mma_f16f16f32")
        programs = [tir_to_ast(blocked(matmul(128)), AVX2), tir_to_ast(blocked(matmul(128)), AVX512),
                    tir_to_ast(blocked(matmul(128)), ARM),
                    tir_to_ast(int8_dense("uint8", 16, 4, "dot_16x4_vnni"), VNNI),
                    tir_to_ast(int8_dense("int8", 4, 4, "dot_4x4_i8i8s32_sdot"), ARM),
                    tir_to_ast(sch.mod["main"], CUDA)]
        with ucmoh.open(REGISTRY, "ucmoh@1", plugins=PLUGINS) as model:
            scores = model.score(programs)
        self.assertEqual(scores.shape, (len(programs),))
        self.assertTrue(np.all(np.isfinite(scores)))


class Refusals(unittest.TestCase):
    def refused(self, func, target):
        with self.assertRaises(UnsupportedTIR) as e:
            tir_to_ast(func, target)
        return str(e.exception)

    def test_untensorized_int8(self):
        self.assertIn("untensorized s32 multiply-accumulate", self.refused(blocked(matmul(64, "int8", "int32")), AVX2))

    def test_int8_without_vnni_has_no_intrinsic(self):
        message = self.refused(int8_dense("uint8", 16, 4, "dot_16x4_avx512"), AVX512)
        self.assertIn("llvm.x86.avx512.pmaddubs.w.512", message)
        self.assertIn("no registered UCMoH intrinsic", message)

    def test_neon_int8_without_dotprod_has_no_intrinsic(self):
        self.assertIn("llvm.aarch64.neon.smull", self.refused(int8_dense("int8", 4, 4, "dot_4x4_i8i8s32_neon"), ARM))

    def test_reductions_other_than_multiply_accumulate(self):
        a = te.placeholder((64, 64), "float32", name="A")
        k = te.reduce_axis((0, 64), "k")
        row_max = te.compute((64,), lambda i: te.max(a[i, k], axis=k), name="row_max")
        self.assertIn("block 'row_max': a reduction computing Max", self.refused(te.create_prim_func([a, row_max]), AVX2))

    def test_unknown_calls_in_an_epilogue(self):
        a = te.placeholder((64,), "float32", name="A")
        b = te.compute((64,), lambda i: tvm.tirx.call_extern("float32", "my_activation", a[i]), name="act")
        self.assertIn("block 'act': calls tirx.call_extern", self.refused(te.create_prim_func([a, b]), AVX2))

    def test_cuda_cores(self):
        self.assertIn("scalar multiply-accumulate on CUDA cores", self.refused(blocked(matmul(64)), CUDA))


if __name__ == "__main__":
    unittest.main()
