"""ModelChoice: per task, the cost model that has ranked the task's own measured
candidates better — the registry's pretrained model, kept as pulled, or
MetaSchedule's XGBModel learning the session online.

Why: in the tuning study (docs/benchmarks.md, issue 37) the pulled model, never
updated, finds the best programs of the tasks it ranks well sooner than XGBModel
does, and falls behind on the tasks it ranks poorly, where XGBModel learns the
task from its own measurements (BERT's large dense layers, ResNet-18's 3x3
convolutions). Updating the pulled network online from 16 candidates at a time
did not fix those tasks without harming the others. So both models run: every
measured batch of a task is first ranked by both, before either learns from it
(out of sample), and counts toward each model's pairwise accuracy on that task;
the task is ranked by XGBModel once XGBModel has been right on more of the same
pairs. A choice changes only in `update`, between search iterations, so one
evolutionary search never compares scores of two models.
"""
import time

import numpy as np
import tvm.s_tir.meta_schedule as ms
from tvm.ir.utils import derived_object
from tvm.s_tir.meta_schedule.cost_model import PyCostModel

from .database import runner_latency
from .prior_accounting import PriorAccounting


def concordant_pairs(scores, latencies):
    """(pairs the scores order as the latencies do, pairs of distinct latencies):
    a higher score should mean a lower latency."""
    scores, latencies = np.asarray(scores, dtype="float64"), np.asarray(latencies, dtype="float64")
    faster = latencies[:, None] < latencies[None, :]
    ranked_higher = scores[:, None] > scores[None, :]
    return int(np.sum(faster & ranked_higher)), int(np.sum(faster))


class TaskRecord:
    """Both models' concordant pairs on the batches of one task that both ranked."""

    def __init__(self):
        self.pairs = 0
        self.right = {"prior": 0, "online": 0}
        self.measured = 0  # the task's candidates measured so far

    def add(self, prior_scores, online_scores, latencies):
        right, pairs = concordant_pairs(prior_scores, latencies)
        self.right["prior"] += right
        self.right["online"] += concordant_pairs(online_scores, latencies)[0]
        self.pairs += pairs

    @property
    def chosen(self):
        """'online' once it has been right on strictly more pairs; 'prior' until then."""
        return "online" if self.right["online"] > self.right["prior"] else "prior"

    def accuracy(self, model):
        return self.right[model] / self.pairs if self.pairs else None


@derived_object
class ModelChoice(PyCostModel, PriorAccounting):  # TVM reads its metadata from the first base
    """`prior`: a ucmoh.tvm.CostModel (learn=False: it stays as pulled);
    `online`: a MetaSchedule cost model that learns (default XGBModel after 16
    warm-up samples, the study's strongest online baseline). `warmup`: each
    task's first `warmup` measured candidates are chosen at random (scores from
    a generator seeded with `seed`), so that the search explores before either
    model guides it (docs/benchmarks.md, "On a CPU the model never measured")."""

    def __init__(self, prior, online=None, warmup=0, seed=0):
        super().__init__()
        self.prior = prior
        self.warmup, self.random = warmup, np.random.default_rng(seed)
        if online is None:
            online = ms.cost_model.XGBModel(num_warmup_samples=16, num_tuning_cores=1)
        self.online = online
        self.tasks = {}  # task name -> TaskRecord
        # XGBModel's seconds by purpose: scoring a search's candidates (tasks it
        # ranks), judging each measured batch before it learns from it, learning.
        self.online_split = {"search": 0.0, "judge": 0.0, "update": 0.0}

    def _task(self, context):
        return self.tasks.setdefault(str(context.task_name), TaskRecord())

    def _online_ready(self):
        """XGBModel scores at random until it has trained on its warm-up samples."""
        return self.online.booster is not None and self.online.data_size >= self.online.num_warmup_samples

    def _online(self, purpose, method, *args):
        start = time.perf_counter()
        try:
            return getattr(self.online, method)(*args)
        finally:
            self.online_split[purpose] += time.perf_counter() - start

    @property
    def online_seconds(self):
        return sum(self.online_split.values())

    def predict(self, context, candidates):
        if self._task(context).measured < self.warmup:
            return self.random.uniform(size=len(candidates))
        if self._task(context).chosen == "online":
            return self._online("search", "predict", context, candidates)
        return self.prior.predict(context, candidates)

    def update(self, context, candidates, results):
        measured = [(c, runner_latency(r)) for c, r in zip(candidates, results)]
        measured = [(c, latency) for c, latency in measured if latency is not None]
        self._task(context).measured += len(candidates)
        if len(measured) >= 2 and self._online_ready():
            chosen = [c for c, _ in measured]
            # The prior's logits: a batch judged is no search, so its handed tally stays the search's own.
            self._task(context).add(self.prior.rank_logits(context, chosen), self._online("judge", "predict", context, chosen),
                                    [latency for _, latency in measured])
        self._online("update", "update", context, candidates, results)

    def choices(self):
        """Per task: the model it is ranked by now and both models' accuracy so far."""
        return {name: {"chosen": t.chosen, "pairs": t.pairs, "prior": t.accuracy("prior"),
                       "online": t.accuracy("online")} for name, t in self.tasks.items()}

    @property
    def update_seconds(self):
        """The study's accounting (PriorAccounting): XGBoost's seconds."""
        return self.online_seconds

    @property
    def measured(self):
        """Measured candidates the online model learned from."""
        return self.online.data_size

    # The pulled model never changes here: saving and loading is the online model's state.
    def save(self, path):
        self.online.save(path)

    def load(self, path):
        self.online.load(path)
