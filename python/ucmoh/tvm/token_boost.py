"""TokenBoost: the registry's pulled model, corrected during a tuning session
by gradient-boosted trees that learn the session's measurements on the
model's own feature tokens, boosting from the model's scores.

Why: ModelChoice and ModelBlend put MetaSchedule's XGBModel beside the pulled
model. XGBModel extracts TVM's PerStoreFeature from every candidate of every
search, one candidate at a time: 407 of the blend's 502 cost-model seconds on
ResNet-18 (docs/benchmarks.md, "Blending the two models"), which keeps every
model with XGBModel inside above issue 37's 10 % of the tuning wall-clock.
And on issue 36's held-out MetaSchedule tasks, trees on the registry's tokens
rank better than on PerStoreFeature (0.743-0.760 PCA against 0.699). The
tokens cost nothing more here: the pulled model's AST of each candidate is
already made (and cached) to score it, and libucmoh featurizes it
(ucmoh.Model.flat_features).

The trees boost from the pulled model: each row's base margin is the model's
logit, standardized against the task's first population, times a per-task
trust fitted on the task's measured pairs (the scale that best predicts which
of two measured candidates is faster, 0 where the model ranks at chance or
worse). So before any measurement the session ranks as the pulled model
does, and the trees learn only where the measurements disagree with it.

With a half-life h, the prior's weight in a task's base margin is its trust
times h / (h + n) after n measurements of the task: the trust is fitted on the
candidates the search chose, which the prior itself steered, so it cannot see
a fast region the prior scores low (in one of three 256-trial BERT runs,
TokenBoost measured a dense layer around the prior's 68th percentile and
stalled at 8.6 ms, where XGBModel's fastest candidates sat mostly at its
15th-50th and reached 6.7 ms; docs/benchmarks.md "Long runs"). With a
half-life, the longer a task is tuned, the more its own measurements decide.

With a window w, the trees train on at most w measured candidates a task:
its w / 2 fastest and the most recent of the rest. Retrained from scratch
after every batch on every candidate, the trees' cost grows with the square
of the run (33-37 s at 256 trials a task on BERT-base against ~4 s at 64),
so at the paper's 2,000 a task they would take longer than the search; a
window bounds one training by the number of tasks. The fastest half keeps
what the search must not lose (the region it converged to); the recent half
follows it. The default since 2026-12-07 is w = 128; window=0 trains on
every candidate, as every run before it did.

The search reads the result as a SearchFitness, like the other registry
models: positive, on one scale per task until the next update.
"""
import time

import numpy as np
from tvm.ir.utils import derived_object
from tvm.s_tir.meta_schedule.cost_model import PyCostModel

from .database import runner_latency
from .prior_accounting import PriorAccounting
from .search_fitness import TEMPERATURE, ScoreTally, SearchFitness

# The trust grid: margins per standard deviation of the task's logits. 0 =
# the prior ranks this task at chance; 4 = a one-sigma gap is near certain.
TRUSTS = (0.0, 0.125, 0.25, 0.5, 1.0, 2.0, 4.0)
DEFAULT_TRUST = 1.0  # a task not measured yet: the pulled model as trained
MAX_TOKENS = 16  # flat width: MetaSchedule's CPU programs have at most 16 tokens (issue 36's XGBoost rows)
# Trees: rank:pairwise within each task, a few shallow rounds so a handful of
# batches corrects the prior rather than replacing it.
BOOSTER_PARAMS = {"objective": "rank:pairwise", "eta": 0.1, "max_depth": 6, "min_child_weight": 1.0,
                  "subsample": 1.0, "tree_method": "hist", "nthread": 1, "verbosity": 0}
ROUNDS = 60
HALF_LIFE = 0  # no decay: the prior keeps its fitted trust however long a task is tuned (every run before 2026-12-06)
# The trees train on at most 128 candidates a task: on Zen 4, six seeds of BERT-base at 256 trials
# a task ended at or below its runs without one, with 30 % less training (docs/benchmarks.md, "Six seeds
# of the long runs"). Runs before 2026-12-07 had none (window=0, `--boost-window 0`); a task
# measured at most 128 times is tuned exactly as without it.
WINDOW = 128


def fitted_trust(z, latencies, grid=TRUSTS):
    """The scale a of `z` (one task's standardized logits) under which
    sigmoid(a (z_i - z_j)) best predicts that candidate i is faster than j,
    over every pair of distinct latencies (the grid's first value on a tie)."""
    z, latencies = np.asarray(z, dtype="float64"), np.asarray(latencies, dtype="float64")
    faster = latencies[:, None] < latencies[None, :]
    gaps = (z[:, None] - z[None, :])[faster]
    if gaps.size == 0:
        return DEFAULT_TRUST
    likelihood = [-np.sum(np.logaddexp(0.0, -a * gaps)) for a in grid]  # sum of log sigmoid(a * gap)
    return float(grid[int(np.argmax(likelihood))])


def prior_weight(trust, measured, half_life=HALF_LIFE):
    """The prior's weight in a task's base margin: its fitted `trust`, times
    half_life / (half_life + measured) where a half-life is set (0: no decay)."""
    return trust if half_life <= 0 else trust * half_life / (half_life + measured)


def training_window(latencies, window=WINDOW):
    """Indices, in measurement order, of a task's measured candidates the trees
    train on: all of them, or with a window w < their number, the w // 2
    fastest and the most recently measured of the rest, w in all."""
    n = len(latencies)
    if window <= 0 or n <= window:
        return np.arange(n)
    fastest = np.argsort(np.asarray(latencies, dtype="float64"), kind="stable")[: window // 2]
    rest = np.setdiff1d(np.arange(n), fastest)  # ascending: measurement order
    return np.sort(np.concatenate([fastest, rest[len(rest) - (window - len(fastest)):]]))


def train_trees(xgboost, groups, params=None, rounds=ROUNDS):
    """A booster from scratch on `groups`, one per task: (flat token rows, base
    margins, latencies in seconds); groups of fewer than 2 candidates are left
    out (nothing to order). None when no group is left."""
    groups = [g for g in groups if len(g[2]) >= 2]
    if not groups:
        return None
    matrix = xgboost.DMatrix(np.concatenate([g[0] for g in groups]),
                             label=np.concatenate([-np.log(np.asarray(g[2], dtype="float64")) for g in groups]),
                             base_margin=np.concatenate([np.asarray(g[1], dtype="float64") for g in groups]))
    matrix.set_group([len(g[2]) for g in groups])  # higher label = faster; only the order within a task counts
    return xgboost.train(dict(BOOSTER_PARAMS, **(params or {})), matrix, num_boost_round=rounds)


def boosted_margins(xgboost, booster, rows, base):
    """The booster's margins of `rows`, boosting from `base`."""
    return booster.predict(xgboost.DMatrix(rows, base_margin=np.asarray(base, dtype="float64")),
                           output_margin=True).astype("float64")


@derived_object
class TokenBoost(PyCostModel, PriorAccounting):  # TVM reads its metadata from the first base
    """`prior`: a ucmoh.tvm.CostModel (learn=False: the pulled model stays as
    pulled; only the trees learn)."""

    def __init__(self, prior, seed=0, temperature=TEMPERATURE, rounds=ROUNDS, max_tokens=MAX_TOKENS,
                 half_life=HALF_LIFE, window=WINDOW):
        super().__init__()
        import xgboost  # TVM's XGBModel's own dependency (tools/setup-tvm installs it)
        self._xgb = xgboost
        if half_life < 0:
            raise ValueError(f"the prior's half-life must be 0 (none) or a number of measurements (got {half_life})")
        if window < 0 or window == 1:
            raise ValueError(f"the trees' window must be 0 (none) or at least 2 candidates a task (got {window})")
        self.prior, self.rounds, self.max_tokens = prior, rounds, max_tokens
        self.half_life, self.window = half_life, window
        self.params = {"seed": seed}
        self.prior_scale = SearchFitness(temperature)  # standardizes the prior's logits per task, kept for the run
        self.fitness = SearchFitness(temperature)  # of the boosted margins; reset after every update
        self.handed = ScoreTally()  # what predict returned to the search
        self.booster = None
        self.tasks = {}  # task name -> {"rows": [], "z": [], "latencies": []}
        self.trust = {}  # task name -> fitted trust in the prior
        self.split = {"features": 0.0, "train": 0.0, "trees": 0.0}  # the trees' own seconds
        self.measured = 0

    def _z(self, task, context, candidates):
        return self.prior_scale.standardize(task, self.prior.rank_logits(context, candidates))

    def _features(self, context, candidates):
        """The flat token rows of the readable ones of `candidates`, and which
        those are (the rest rank last and teach the trees nothing)."""
        start = time.perf_counter()
        programs = self.prior.programs(context, candidates)
        readable = np.array([p is not None for p in programs], dtype=bool)
        text = "".join(p + "\n" for p in programs if p is not None)
        rows = self.prior.model.flat_features(text, self.max_tokens) if text else None
        self.split["features"] += time.perf_counter() - start
        return rows, readable

    def _margins(self, rows, base):
        start = time.perf_counter()
        margins = boosted_margins(self._xgb, self.booster, rows, base)
        self.split["trees"] += time.perf_counter() - start
        return margins

    def predict(self, context, candidates):
        task = str(context.task_name)
        z = self._z(task, context, candidates)
        if self.booster is None:
            scores = self.fitness.of_standardized(z)  # nothing measured yet: the pulled model's fitness
        else:
            rows, readable = self._features(context, candidates)
            margins = np.full(len(candidates), -np.inf)  # the unreadable: lowest, as the prior ranks them
            if readable.any():
                margins[readable] = self._margins(rows, self._weight(task) * z[readable])
            scores = self.fitness(task, margins)
        self.handed.add(scores)
        return scores

    def update(self, context, candidates, results):
        measured = [(c, runner_latency(r)) for c, r in zip(candidates, results)]
        measured = [(c, latency) for c, latency in measured if latency is not None]  # failed runs are not latencies
        if not measured:
            return
        task = str(context.task_name)
        chosen = [c for c, _ in measured]
        rows, readable = self._features(context, chosen)
        if not readable.any():
            return
        data = self.tasks.setdefault(task, {"rows": rows[:0], "z": np.zeros(0), "latencies": np.zeros(0)})
        data["rows"] = np.concatenate([data["rows"], rows])
        data["z"] = np.concatenate([data["z"], self._z(task, context, chosen)[readable]])
        data["latencies"] = np.concatenate([data["latencies"], np.array([latency for _, latency in measured])[readable]])
        self.measured += int(readable.sum())
        kept = training_window(data["latencies"], self.window)
        self.trust[task] = fitted_trust(data["z"][kept], data["latencies"][kept])
        self._train()
        self.fitness.reset()  # the margins moved

    def _weight(self, task):
        """The prior's weight in `task`'s base margin now (DEFAULT_TRUST before its first measurement)."""
        data = self.tasks.get(task)
        if data is None:
            return DEFAULT_TRUST
        return prior_weight(self.trust[task], len(data["latencies"]), self.half_life)

    def _train(self):
        """Trees from scratch on every measured candidate (or each task's window), grouped by task."""
        start = time.perf_counter()
        groups = []
        for name, d in self.tasks.items():
            kept = training_window(d["latencies"], self.window)
            groups.append((d["rows"][kept], self._weight(name) * d["z"][kept], d["latencies"][kept]))
        self.booster = train_trees(self._xgb, groups, self.params, self.rounds) or self.booster
        self.split["train"] += time.perf_counter() - start

    def choices(self):
        """Per task: the trust in the prior the measurements fitted, how many there were,
        (with a half-life) the prior's weight that leaves, and (with a window) how
        many of them the trees last trained on."""
        choices = {name: {"trust": self.trust.get(name), "measured": len(data["latencies"])}
                   for name, data in self.tasks.items()}
        if self.half_life > 0:
            for name, choice in choices.items():
                choice["weight"] = self._weight(name)
        if self.window > 0:
            for name, choice in choices.items():
                choice["trained"] = len(training_window(self.tasks[name]["latencies"], self.window))
        return choices

    @property
    def update_seconds(self):
        """The study's accounting (PriorAccounting): the trees' seconds."""
        return sum(self.split.values())

    def save(self, path):
        if self.booster is not None:
            self.booster.save_model(path)

    def load(self, path):
        self.booster = self._xgb.Booster(model_file=path)
