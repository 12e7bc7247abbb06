"""ModelBlend: per task, the registry's pretrained model and MetaSchedule's
XGBModel learning online scored together, each weighted by how well it has
ranked the task's own measured candidates.

Why: ModelChoice ranks a task by one model, switching when the other has been
right on more pairs. On BERT on the Xeon (docs/benchmarks.md, "The search's
fitness on the Xeon") one of five choice runs kept the prior on
`dense.m128n768k3072.bias_add`, where the two had ranked 0.639 and 0.636 of
1,320 pairs right, a tie, and that task stayed twice as slow as the other
seeds'. And the two models err on different programs: their ranks averaged
held-out MetaSchedule tasks better than either (issue 36: 0.765 against 0.760
and 0.751). A blend has no switch to lose on a tie, and can rank better than
both where both know something.

The search compares scores across calls (its heap of the best), so each
model's scores are standardized against a reference population of the task
(SearchFitness: the first population after that model last changed), combined
with weights max(accuracy - 0.5, 0) of the pairs each ranked right out of
sample (a model at chance adds nothing; both at chance count alike), and handed
as one fitness. Until XGBModel has ranked a judged batch of the task, the
prior ranks it alone, as in ModelChoice.

`shortlist` < 1 makes the blend a cascade: XGBModel scores only the prior's
best `shortlist` share of each call, the rest counting at the lowest XGBModel
score of the shortlist. Why: XGBModel's scoring of every search (its feature
extraction, one candidate at a time) was 40 of the 59 s the blend cost on BERT,
13.2 % of the tuning wall-clock against issue 37's 10 %; the prior's own
scoring is 13 s. Every shortlisted candidate still outranks every other one
(its prior score is higher and its XGBModel score no lower), and the others
keep the prior's order.
"""
import math

import numpy as np
from tvm.ir.utils import derived_object

from .model_choice import ModelChoice
from .search_fitness import TEMPERATURE, ScoreTally, SearchFitness


def blend_weights(record, online_ready):
    """{"prior": w, "online": w}, summing to 1, from a TaskRecord's accuracies."""
    if not online_ready or record.pairs == 0:
        return {"prior": 1.0, "online": 0.0}
    edge = {m: max(record.accuracy(m) - 0.5, 0.0) for m in ("prior", "online")}
    total = sum(edge.values())
    return {m: e / total for m, e in edge.items()} if total > 0 else {"prior": 0.5, "online": 0.5}


@derived_object
class ModelBlend(ModelChoice._cls):  # TVM's decorated class is not inherited from; its Python class is
    """ModelChoice's models, judging and warm-up; `predict` blends instead of
    choosing. `prior`: a ucmoh.tvm.CostModel (learn=False)."""

    def __init__(self, prior, online=None, warmup=0, seed=0, temperature=TEMPERATURE, shortlist=1.0):
        super().__init__(prior, online, warmup, seed)
        if not 0 < shortlist <= 1:
            raise ValueError(f"model blend: the shortlist must be a share in (0, 1] (got {shortlist:g})")
        self.shortlist = shortlist
        self.standard = {"prior": SearchFitness(temperature), "online": SearchFitness(temperature)}
        self.fitness = self.standard["prior"]  # the fitness the blend hands (the study's row reads its temperature)
        self.handed = ScoreTally()  # what predict returned to the search

    def predict(self, context, candidates):
        record = self._task(context)
        if record.measured < self.warmup:
            return self.random.uniform(size=len(candidates))
        task, weights = str(context.task_name), blend_weights(record, self._online_ready())
        prior = self.standard["prior"].standardize(task, self.prior.rank_logits(context, candidates))
        z = weights["prior"] * prior
        if weights["online"] > 0:
            z = z + weights["online"] * self._online_standardized(task, context, candidates, prior)
        scores = self.fitness.of_standardized(z)
        self.handed.add(scores)
        return scores

    def _online_standardized(self, task, context, candidates, prior):
        """XGBModel's standardized scores of the prior's shortlist; the rest at the shortlist's lowest."""
        if self.shortlist >= 1:
            return self.standard["online"].standardize(task, self._online("search", "predict", context, candidates))
        listed = np.argsort(-prior, kind="stable")[:math.ceil(self.shortlist * len(candidates))]
        online = self.standard["online"].standardize(
            task, self._online("search", "predict", context, [candidates[i] for i in listed]))
        full = np.full(len(candidates), float(np.min(online)))
        full[listed] = online
        return full

    def update(self, context, candidates, results):
        super().update(context, candidates, results)
        self.standard["online"].reset()  # XGBModel learned: its scores moved

    def choices(self):
        """ModelChoice's per-task accuracies, with the weights the blend gives each model now."""
        ready = self._online_ready()
        return {name: dict(choice, weights=blend_weights(self.tasks[name], ready))
                for name, choice in super().choices().items()}
