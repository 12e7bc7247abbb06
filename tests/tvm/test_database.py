"""ucmoh.tvm.database with apache-tvm 0.27 (run by tvm_test.sh): a MetaSchedule
JSON database read back in a fresh process, as `registry import metaschedule`
reads a tuning run's."""
import os
import subprocess
import sys
import tempfile
import unittest

import tvm
import tvm.s_tir.meta_schedule as ms

from test_tir_to_ast import VNNI, int8_dense_schedule, int8_dense_workload

_READ = "import sys; from ucmoh.tvm.database import tuning_records_in_order as r; print(len(list(r(sys.argv[1]))))"


class Reading(unittest.TestCase):
    def test_an_int8_runs_traces_read_back_in_a_process_that_registered_nothing(self):
        # `registry import metaschedule` of issue 37's int8 runs once failed here:
        # "TensorIntrin 'dot_16x4_vnni' is not registered".
        with tempfile.TemporaryDirectory() as work:
            database = ms.database.JSONDatabase(work_dir=work)
            workload = database.commit_workload(int8_dense_workload("uint8", 16, 4))
            trace = int8_dense_schedule("uint8", 16, 4, "dot_16x4_vnni").trace
            database.commit_tuning_record(ms.database.TuningRecord(
                trace, workload, run_secs=[tvm.runtime.convert(1e-3)], target=VNNI))
            read = subprocess.run([sys.executable, "-c", _READ, work], capture_output=True, text=True,
                                  env=dict(os.environ))
            self.assertEqual(read.returncode, 0, read.stderr[-2000:])
            self.assertEqual(read.stdout.strip(), "1")


if __name__ == "__main__":
    unittest.main()
