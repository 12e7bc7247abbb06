"""CostModel: MetaSchedule's PyCostModel over a registry version or a pulled model."""
import json
import time

import numpy as np
from tvm.ir.utils import derived_object
from tvm.s_tir.meta_schedule.cost_model import PyCostModel

import ucmoh

from .tir_to_ast import tir_to_ast


@derived_object
class CostModel(PyCostModel):
    """MetaSchedule's cost model interface over a registry version (or a pulled model)."""

    def __init__(self, path, ref=None, target=None, plugins=None, update_epochs=5):
        super().__init__()
        self.path, self.ref, self.plugins = path, ref, plugins
        self.model = ucmoh.open(path, ref, plugins)
        self.target = target
        self.update_epochs = update_epochs
        self.predict_seconds = 0.0  # TIR -> AST conversion and scoring
        self.update_seconds = 0.0   # conversion and the online update
        self.predicted = 0  # candidates scored
        self.measured = 0   # measured candidates learned from

    def _program(self, context, candidate):
        target = self.target or context.target
        return tir_to_ast(candidate.sch.mod["main"], target, task=str(context.task_name or "tvm"))

    def predict(self, context, candidates):
        start = time.perf_counter()
        programs = [json.dumps(self._program(context, c)) for c in candidates]
        scores = self.model.score("\n".join(programs) + "\n") if programs else np.zeros(0, dtype=np.float32)
        self.predicted += len(programs)
        self.predict_seconds += time.perf_counter() - start
        return scores.astype("float64")

    def update(self, context, candidates, results):
        start = time.perf_counter()
        measured = [(c, r) for c, r in zip(candidates, results) if r.run_secs]  # failed runs are not latencies
        if len(measured) >= 2:
            programs = [json.dumps(self._program(context, c)) for c, _ in measured]
            latencies = [float(np.mean([float(s) for s in r.run_secs])) for _, r in measured]
            self.model.update("\n".join(programs) + "\n", latencies, epochs=self.update_epochs)
            self.measured += len(measured)
        self.update_seconds += time.perf_counter() - start

    @property
    def seconds(self):
        """The cost model's own time: predict and update."""
        return self.predict_seconds + self.update_seconds

    def save(self, path):
        """Commits the updated model as a registry version; writes its ref to `path`."""
        version = self.model.commit()
        with open(path, "w") as f:
            json.dump({"registry": self.path, "ref": f"ucmoh@{version}"}, f)

    def load(self, path):
        with open(path) as f:
            saved = json.load(f)
        self.model = ucmoh.open(saved["registry"], saved["ref"], self.plugins)
