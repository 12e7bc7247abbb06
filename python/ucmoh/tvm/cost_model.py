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
from .tir_exprs import UnsupportedTIR
from .tir_to_ast import tir_to_ast

_CACHED = 20000  # ASTs CostModel keeps (a few KB each): about eight iterations of a 512-candidate search


def _reason(error):
    """An UnsupportedTIR message without the name of the block it is about (one count per kind)."""
    return str(error).split(": ", 1)[-1] if str(error).startswith("block '") else str(error)


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
        # Candidates the converter refuses (an int8 design space where the VNNI
        # tensorization failed leaves a scalar s32 multiply-accumulate) are
        # programs the model cannot read: they rank below every program it can
        # (logit -inf, a fitness of ~0) and teach it nothing. Counted by reason.
        self.unreadable = collections.Counter()

    def _program(self, context, candidate):
        """The candidate's AST as JSON text; None where the converter refuses it."""
        func = candidate.sch.mod["main"]
        key = tvm_ffi.structural_hash(func)
        if key in self._asts:
            self._asts.move_to_end(key)
            return self._asts[key]
        target = self.target or context.target
        try:
            text = json.dumps(tir_to_ast(func, target, task=str(context.task_name or "tvm")))
        except UnsupportedTIR as e:
            text = None
            self.unreadable[_reason(e)] += 1
        self._asts[key] = text
        if len(self._asts) > _CACHED:
            self._asts.popitem(last=False)
        self.converted += 1
        return text

    def programs(self, context, candidates):
        """Each candidate's AST text (None where unreadable)."""
        return [self._program(context, c) for c in candidates]

    def rank_logits(self, context, candidates):
        """The network's ranking logits of `candidates`, as they are (what
        `predict` hands the search as their fitness; ModelChoice judges by
        them); -inf for a candidate the model cannot read."""
        start = time.perf_counter()
        programs = self.programs(context, candidates)
        readable = [p for p in programs if p is not None]
        scores = np.full(len(programs), -np.inf)
        if readable:
            scores[[p is not None for p in programs]] = self.model.score("\n".join(readable) + "\n")
        self.logits.add(scores[np.isfinite(scores)])
        self.predicted += len(programs)
        self.predict_seconds += time.perf_counter() - start
        return scores

    def predict(self, context, candidates):
        scores = self.rank_logits(context, candidates)
        if self.fitness is not None:
            scores = self.fitness(str(context.task_name), scores)
        elif not np.all(np.isfinite(scores)):  # raw logits: the unreadable just below the lowest readable one
            finite = scores[np.isfinite(scores)]
            scores = np.where(np.isfinite(scores), scores, (finite.min() - 1.0) if finite.size else 0.0)
        self.handed.add(scores)
        return scores

    def update(self, context, candidates, results):
        start = time.perf_counter()
        measured = [(c, runner_latency(r)) for c, r in zip(candidates, results)]
        measured = [(c, latency) for c, latency in measured if latency is not None]  # failed runs are not latencies
        if self.learn:
            programs = self.programs(context, [c for c, _ in measured])
            readable = [(p, latency) for p, (_, latency) in zip(programs, measured) if p is not None]
            if len(readable) >= 2:
                self.model.update("\n".join(p for p, _ in readable) + "\n", [latency for _, latency in readable],
                                  epochs=self.update_epochs)
                self.measured += len(readable)
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
