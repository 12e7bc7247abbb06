"""SearchFitness: the registry model's scores in the form MetaSchedule's search
reads a cost model's output.

Why: MetaSchedule's EvolutionarySearch treats `predict`'s output as predicted
normalized throughput (XGBModel's: the candidate's throughput over the task's
best measured one). It clips every score below 0 to 0, keeps the best-scored
candidates of each generation, and draws the next generation's parents with
probability proportional to the score; when every score is 0 it draws the
first candidate every time (tir::MakeMultinomialSampler). The UCMoH network
scores with ranking logits of any sign and scale (a sum of per-token scores),
so fed to the search as they are, every candidate with a negative logit has
no chance of becoming a parent and ties with every other one in the heap, and
a population the model scores all negative evolves from one candidate.

The fitness is exp(z / TEMPERATURE), z the logit standardized against a
reference population of the task: positive, monotone in the logit (so every
ranking figure is unchanged), on one scale for every call until the model
changes. The reference is the first call of the task with at least
MIN_REFERENCE candidates (the search's first population: what the design
space offers), kept until `reset` (an online update changes every logit).
"""
import numpy as np

# The reference population's standard deviations per e-fold of fitness: the
# best of a 128-candidate population (z ~ 2.5) gets ~3.5x the median's chance
# of becoming a parent. Chosen before measuring, not tuned. Measured on BERT, a
# population's best scored 2.45x its median under this fitness on an EPYC Zen 1
# (XGBModel's predicted throughput: 2.00x) and 2.9-3.6x on the Xeon, where the
# raw logits gave 2.4-2.8x and tuned no worse (the tuning study's rows,
# "handed_scores"; docs/benchmarks.md, "The search's fitness" and "... on the
# Xeon"): a higher temperature is the untried weaker pull (--fitness-temperature).
TEMPERATURE = 2.0
MIN_REFERENCE = 32  # fewer candidates (a measured batch being judged) make no reference
_Z_LIMIT = 30.0  # exp(15) at most: no overflow, every order kept


class SearchFitness:
    def __init__(self, temperature=TEMPERATURE, min_reference=MIN_REFERENCE):
        if temperature <= 0:
            raise ValueError(f"search fitness: temperature must be positive (got {temperature:g})")
        self.temperature, self.min_reference = temperature, min_reference
        self.references = {}  # task name -> (median logit, spread)

    @staticmethod
    def _location_and_spread(logits):
        """Median and standard deviation; a spread of 0 (all scores equal) counts as 1."""
        spread = float(np.std(logits))
        return float(np.median(logits)), spread if spread > 0 else 1.0

    def standardize(self, task, logits):
        """Each of `logits` (one task's candidates, one call) in the task's
        reference population's standard deviations from its median, within
        ±_Z_LIMIT (-inf, an unreadable program, is the lowest)."""
        logits = np.asarray(logits, dtype="float64")
        readable = logits[np.isfinite(logits)]  # -inf: a program the model cannot read (CostModel)
        if readable.size == 0:
            return np.full(logits.shape, -_Z_LIMIT)
        reference = self.references.get(task)
        if reference is None:
            reference = self._location_and_spread(readable)
            if readable.size >= self.min_reference:
                self.references[task] = reference
        location, spread = reference
        return np.clip((logits - location) / spread, -_Z_LIMIT, _Z_LIMIT)

    def of_standardized(self, z):
        """The fitness of standardized scores."""
        return np.exp(np.asarray(z, dtype="float64") / self.temperature)

    def __call__(self, task, logits):
        """The fitness of each of `logits` (one task's candidates, one call)."""
        return self.of_standardized(self.standardize(task, logits))

    def reset(self):
        """The model changed: every task takes a new reference at its next search."""
        self.references.clear()


class ScoreTally:
    """What a cost model's `predict` calls handed the search: how many scores it
    would clip (≤ 0), how many calls it would draw every parent from the first
    candidate of (all ≤ 0), and, over populations (≥ MIN_REFERENCE candidates),
    the median ratio of a call's best score to its median one (how strongly the
    search's parent draw favours the best; the tuning study's rows carry it)."""

    def __init__(self):
        self.scores = self.not_positive = self.calls = self.calls_all_not_positive = 0
        self.best_over_median = []

    def add(self, scores):
        scores = np.asarray(scores, dtype="float64")
        if scores.size == 0:
            return
        self.calls += 1
        self.scores += scores.size
        self.not_positive += int(np.sum(scores <= 0))
        self.calls_all_not_positive += int(np.all(scores <= 0))
        median = float(np.median(scores))
        if scores.size >= MIN_REFERENCE and median > 0:
            self.best_over_median.append(float(np.max(scores)) / median)

    def summary(self):
        ratio = float(np.median(self.best_over_median)) if self.best_over_median else None
        return {"scores": self.scores, "not_positive": self.not_positive, "calls": self.calls,
                "calls_all_not_positive": self.calls_all_not_positive, "best_over_median": ratio}
