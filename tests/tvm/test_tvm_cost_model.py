"""ucmoh.tvm.CostModel with apache-tvm 0.27 (run by tvm_test.sh): a MetaSchedule
tuning run that ranks with a registry version end to end, updates it online
from the measured candidates and commits the result as a version. The
converter's own tests are in test_tir_to_ast.py."""
import os
import unittest

import tvm
import tvm.s_tir.meta_schedule as ms

from test_tir_to_ast import matmul
from ucmoh.tvm import CostModel, LocalBuilder

REGISTRY, PLUGINS, WORK = (os.environ[k] for k in ("UCMOH_TEST_REGISTRY", "UCMOH_TEST_PLUGINS", "UCMOH_TEST_WORK"))
AVX2 = tvm.target.Target({"kind": "llvm", "mcpu": "core-avx2", "num-cores": 2})


class Tuning(unittest.TestCase):
    def test_metaschedule_tunes_with_the_registry_model(self):
        model = CostModel(REGISTRY, "ucmoh@1", AVX2, plugins=PLUGINS, update_epochs=2)
        database = ms.tune_tir(matmul(64), AVX2, os.path.join(WORK, "tune"), max_trials_global=8,
                               num_trials_per_iter=4, cost_model=model, builder=LocalBuilder())
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
