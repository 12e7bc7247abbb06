"""ucmoh.tvm with apache-tvm 0.27 (run by tvm_test.sh): the converter's AST of
known schedules (loop extents, footprints, intrinsic), its refusals, and a
MetaSchedule tuning run that ranks with a registry version end to end."""
import os
import unittest

import numpy as np
import tvm
import tvm.s_tir as s_tir
import tvm.s_tir.meta_schedule as ms
from tvm import te

import ucmoh
from ucmoh.tvm import CostModel, UnsupportedTIR, tir_to_ast

REGISTRY, PLUGINS, WORK = (os.environ[k] for k in ("UCMOH_TEST_REGISTRY", "UCMOH_TEST_PLUGINS", "UCMOH_TEST_WORK"))
AVX2 = tvm.target.Target({"kind": "llvm", "mcpu": "core-avx2", "num-cores": 2})
AVX512 = tvm.target.Target({"kind": "llvm", "mcpu": "skylake-avx512", "num-cores": 2})


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


def walk(nodes, loops=(), out=None):
    out = [] if out is None else out
    for n in nodes:
        if "loop" in n:
            walk(n["body"], loops + ((n["loop"]["var"], n["loop"]["extent"], n["loop"]["kind"]),), out)
        else:
            out.append((loops, n["stage"]))
    return out


class Converter(unittest.TestCase):
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

    def test_avx512_target_uses_the_avx512_intrinsic(self):
        ast = tir_to_ast(blocked(matmul(128)), AVX512)
        compute = [s for _, s in walk(ast["body"]) if s["kind"] == "compute"]
        self.assertEqual([(s["intrinsic"], s["calls"]) for s in compute], [("x86.avx512", 1)])

    def test_library_scores_the_converted_program(self):
        with ucmoh.open(REGISTRY, "ucmoh@1", plugins=PLUGINS) as model:
            scores = model.score([tir_to_ast(blocked(matmul(128)), AVX2), tir_to_ast(blocked(matmul(64)), AVX2)])
        self.assertEqual(scores.shape, (2,))
        self.assertTrue(np.all(np.isfinite(scores)))

    def test_int8_is_reported_not_dropped(self):
        with self.assertRaises(UnsupportedTIR) as e:
            tir_to_ast(blocked(matmul(64, "int8", "int32")), AVX2)
        self.assertIn("dtype int8", str(e.exception))

    def test_packed_operand_and_epilogue(self):
        sch = s_tir.Schedule(matmul(64))
        c = sch.get_sblock("C")
        sch.cache_read(c, 1, "global")  # B copied into a packed buffer
        ast = tir_to_ast(sch.mod["main"], AVX2)
        self.assertEqual((ast["template_inputs"]["pack_a"], ast["template_inputs"]["pack_b"]), (0, 1))
        kinds = [s["kind"] for _, s in walk(ast["body"])]
        self.assertEqual(kinds.count("compute"), 1)  # the copy is a load and a store, no compute

    def test_other_computations_are_reported(self):
        a = te.placeholder((64,), "float32", name="A")
        relu = te.compute((64,), lambda i: te.max(a[i], tvm.tirx.const(0, "float32")), name="relu")
        with self.assertRaises(UnsupportedTIR) as e:
            tir_to_ast(te.create_prim_func([a, relu]), AVX2)
        self.assertIn("block 'relu': computes Max", str(e.exception))

    def test_gpu_target_is_reported(self):
        with self.assertRaises(UnsupportedTIR) as e:
            tir_to_ast(blocked(matmul(64)), tvm.target.Target({"kind": "cuda", "arch": "sm_86"}))
        self.assertIn("only llvm CPU targets", str(e.exception))


class Tuning(unittest.TestCase):
    def test_metaschedule_tunes_with_the_registry_model(self):
        model = CostModel(REGISTRY, "ucmoh@1", AVX2, plugins=PLUGINS, update_epochs=2)
        database = ms.tune_tir(matmul(64), AVX2, os.path.join(WORK, "tune"), max_trials_global=8,
                               num_trials_per_iter=4, cost_model=model)
        records = database.get_all_tuning_records()
        self.assertGreaterEqual(len(records), 4)
        self.assertTrue(all(r.run_secs for r in records))
        self.assertGreater(model.predicted, 0)
        self.assertGreaterEqual(model.measured, 4)
        self.assertGreaterEqual(model.model.info["updates"], 1)
        self.assertGreater(model.seconds, 0)
        saved = os.path.join(WORK, "model.json")
        model.save(saved)  # a registry version
        model.load(saved)
        self.assertEqual(model.model.info["registry_version"], 2)


if __name__ == "__main__":
    unittest.main()
