"""CostModel: MetaSchedule's PyCostModel over a registry version or a pulled model."""
import collections
import json
import time

import numpy as np
import tvm_ffi
from tvm.ir.utils import derived_object
from tvm.s_tir.meta_schedule.cost_model import PyCostModel

import ucmoh

from .database import runner_latency
from .search_fitness import TEMPERATURE, ScoreTally, SearchFitness
from .tir_to_ast import tir_to_ast

_CACHED = 20000  # ASTs CostModel keeps (a few KB each): about eight iterations of a 512-candidate search


@derived_object
class CostModel(PyCostModel):
    """MetaSchedule's cost model interface over a registry version (or a pulled model)."""

    def __init__(self, path, ref=None, target=None, plugins=None, update_epochs=0, learn=True, raw_scores=False,
                 fitness_temperature=TEMPERATURE):
        """learn=False: `update` learns nothing (the model stays as pulled).
        update_epochs: epochs of each online update (0: libucmoh's default, 2).
        raw_scores=True: `predict` returns the network's ranking logits as they
        are, which MetaSchedule's search clips at 0 (what this class did before
        2026-12-03; kept for the tuning study's comparison); by default it
        returns their SearchFitness, which the search reads as it reads
        XGBModel's predicted throughput; fitness_temperature is its
        temperature (lower: the search favours the model's best more)."""
        super().__init__()
        self.learn = learn
        self.fitness = None if raw_scores else SearchFitness(fitness_temperature)
        self.logits, self.handed = ScoreTally(), ScoreTally()  # the network's scores; what predict returned
        self.path, self.ref, self.plugins = path, ref, plugins
        self.model = ucmoh.open(path, ref, plugins)
        self.target = target
        self.update_epochs = update_epochs
        self.predict_seconds = 0.0  # TIR -> AST conversion and scoring
        self.update_seconds = 0.0   # conversion and the online update
        self.predicted = 0  # candidates scored
        self.measured = 0   # measured candidates learned from
        # Evolutionary search scores the same scheduled function again and again
        # (survivors of each generation, candidates of earlier iterations): its
        # AST text is kept by structural hash, scores are not (updates change them).
        # Least recently used entries go past _CACHED (a few KB each).
        self._asts = collections.OrderedDict()
        self.converted = 0  # candidates actually converted (the rest came from the cache)

    def _program(self, context, candidate):
        """The candidate's AST as JSON text."""
        func = candidate.sch.mod["main"]
        key = tvm_ffi.structural_hash(func)
        text = self._asts.get(key)
        if text is not None:
            self._asts.move_to_end(key)
            return text
        target = self.target or context.target
        text = json.dumps(tir_to_ast(func, target, task=str(context.task_name or "tvm")))
        self._asts[key] = text
        if len(self._asts) > _CACHED:
            self._asts.popitem(last=False)
        self.converted += 1
        return text

    def rank_logits(self, context, candidates):
        """The network's ranking logits of `candidates`, as they are (what
        `predict` hands the search as their fitness; ModelChoice judges by them)."""
        start = time.perf_counter()
        programs = [self._program(context, c) for c in candidates]
        scores = self.model.score("\n".join(programs) + "\n") if programs else np.zeros(0, dtype=np.float32)
        scores = scores.astype("float64")
        self.logits.add(scores)
        self.predicted += len(programs)
        self.predict_seconds += time.perf_counter() - start
        return scores

    def predict(self, context, candidates):
        scores = self.rank_logits(context, candidates)
        if self.fitness is not None:
            scores = self.fitness(str(context.task_name), scores)
        self.handed.add(scores)
        return scores

    def update(self, context, candidates, results):
        start = time.perf_counter()
        measured = [(c, runner_latency(r)) for c, r in zip(candidates, results)]
        measured = [(c, latency) for c, latency in measured if latency is not None]  # failed runs are not latencies
        if self.learn and len(measured) >= 2:
            programs = [self._program(context, c) for c, _ in measured]
            latencies = [latency for _, latency in measured]
            self.model.update("\n".join(programs) + "\n", latencies, epochs=self.update_epochs)
            self.measured += len(measured)
            if self.fitness is not None:
                self.fitness.reset()  # every task's logits moved
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
        if self.fitness is not None:
            self.fitness.reset()
