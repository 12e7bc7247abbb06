"""Issue 37's tuning study: MetaSchedule tunes every task of a network it was
never trained on, with each cost model, on one budget; run through
tools/tvm-study --networks (which pulls the model and sets the environment).

One run = one network x dtype x model x seed: `ms.tune_tasks` over the
network's tasks (ucmoh.tvm.networks, weighted by how often the network runs
each), MetaSchedule's gradient task scheduler, a global budget of
--trials-per-task x tasks, the collector's builder, runner and timing protocol
(ucmoh.tvm.collect), one tuning core. Models:

  ucmoh          the pulled registry version, updated online after every batch
  ucmoh-frozen   the same, never updated
  ucmoh+xgb      per task, the pulled version never updated or XGBModel (16 warm-up
                 samples) learning online: whichever has ranked more of the task's
                 measured pairs right so far (ucmoh.tvm.model_choice)
  ucmoh+xgb-w16  the same after each task's first 16 candidates chosen at random
  ucmoh+xgb-blend both models at once, per task weighted by the measured pairs
                 each ranked right beyond chance (ucmoh.tvm.model_blend); with
                 --blend-shortlist S < 1 XGBModel scores only the prior's best
                 share S of each search call: `ucmoh+xgb-blend@top0.5`
  ucmoh+boost    the pulled version never updated, corrected by trees that learn
                 the session's measurements on its own tokens, boosting from its
                 logits times each task's fitted trust (ucmoh.tvm.token_boost); with
                 --boost-half-life H that weight halves by a task's H-th measurement:
                 `ucmoh+boost@h64`; the trees train on at most W candidates a
                 task (its fastest half, the most recent), --boost-window W,
                 default 128: `ucmoh+boost@w128` (0: on all, `ucmoh+boost`)
  xgb            MetaSchedule's XGBModel, TVM's defaults (100 warm-up samples)
  xgb-w16        XGBModel after 16 random warm-up samples
  random         MetaSchedule's RandomModel
  mlp-pretrained MetaSchedule's MLPModel pretrained on the same MetaSchedule data
                 (--mlp, tools/ms_mlp_client.py), trained incrementally after every batch
  ucmoh-learned  the version that learned a first round's tuning logs (--learned;
                 tools/tvm-network-study-learn): the second tuning session, never
                 updated online (as ucmoh-frozen, the way docs/compilers.md tunes)

The search is MetaSchedule's EvolutionarySearch; --eps-greedy sets the share of
each batch it draws at random from its fresh design-space samples instead of the
cost model's best. MetaSchedule floors that share times the batch to a count,
so its default (0.05) picks no random candidate at all from a batch under 20:
the study's batches of 16 explore only through the cost model. A run with
another value is its own model in the results: `ucmoh+xgb@eps0.25`.

The registry's models give the search their scores as ucmoh.tvm.SearchFitness
(positive, on one scale per task: what the search expects of a cost model);
--raw-scores gives it the network's logits as they are, which the search clips
at 0, as every run before 2026-12-03 did: `ucmoh+xgb@raw@eps0.25`; and
--fitness-temperature T another temperature of the fitness: `ucmoh-frozen@T4`.
Each row of a registry model says which in "scores" (and "fitness_temperature").

Each run appends one JSON line to OUT/network_results.jsonl (resumable:
finished runs are skipped; an interrupted run starts again) with every trial
in measurement order: (task index, latency or null when it failed, seconds
since the start), and the time its cost model spent (conversion, scoring,
updates). tools/plot-tvm-network-study turns them into curves and the table.
The run's MetaSchedule database stays in OUT/db/NETWORK.DTYPE/MODEL-sSEED for
`registry import metaschedule`.
"""
import argparse
import json
import os
import shutil
import sys
import time

import tvm
import tvm.s_tir.meta_schedule as ms
from tvm.ir.utils import derived_object
from tvm.s_tir.meta_schedule.cost_model import PyCostModel
from tvm.s_tir.meta_schedule.logging import get_loggers_from_work_dir
from tvm.s_tir.meta_schedule.measure_callback import MeasureCallback, PyMeasureCallback
from tvm.s_tir.meta_schedule.utils import fork_seed

from ucmoh.tvm import CostModel, ModelBlend, ModelChoice, TokenBoost
from ucmoh.tvm.database import runner_latency
from ucmoh.tvm.collect import _builder, _parse as collector_options, _runner, _space, host_target
from ucmoh.tvm.search_fitness import TEMPERATURE, ScoreTally
from ucmoh.tvm.token_boost import HALF_LIFE, WINDOW
from ucmoh.tvm.networks import tasks as network_tasks

DEFAULT_EPS_GREEDY = 0.05  # MetaSchedule's EvolutionarySearch default
MODELS = ("ucmoh", "ucmoh-frozen", "ucmoh+xgb", "ucmoh+xgb-w16", "ucmoh+xgb-blend", "ucmoh+boost", "xgb", "xgb-w16", "random", "mlp-pretrained", "ucmoh-learned")


@derived_object
class TrialLog(PyMeasureCallback):
    """Every measured candidate in order: [task index, latency or None, seconds since start]."""

    def __init__(self, start):
        super().__init__()
        self.start, self.trials = start, []

    def apply(self, task_scheduler, task_id, measure_candidates, builder_results, runner_results):
        now = time.perf_counter() - self.start
        for built, ran in zip(builder_results, runner_results):
            latency = runner_latency(ran) if built.error_msg is None else None
            self.trials.append([int(task_id), latency, round(now, 3)])


@derived_object
class Timed(PyCostModel):
    """Any cost model, with the seconds its predict and update take (the
    model's share of the tuning wall-clock)."""

    def __init__(self, inner):
        super().__init__()
        self.inner = inner
        self.split = {"predict": 0.0, "update": 0.0}  # seconds by method
        self.handed = ScoreTally()  # what predict returned to the search

    @property
    def seconds(self):
        return sum(self.split.values())

    def _timed(self, method, *args):
        start = time.perf_counter()
        try:
            return getattr(self.inner, method)(*args)
        finally:
            self.split[method] += time.perf_counter() - start

    def load(self, path):
        self.inner.load(path)

    def save(self, path):
        self.inner.save(path)

    def update(self, context, candidates, results):
        self._timed("update", context, candidates, results)

    def predict(self, context, candidates):
        scores = self._timed("predict", context, candidates)
        self.handed.add(scores)
        return scores


def cost_model(kind, args, target, seed):
    scores = dict(raw_scores=args.raw_scores, fitness_temperature=args.fitness_temperature)
    if kind in ("ucmoh", "ucmoh-frozen"):
        return CostModel(args.pulled, None, target, plugins=args.plugins, learn=kind == "ucmoh", **scores)
    if kind in ("ucmoh+xgb", "ucmoh+xgb-w16"):  # -w16: each task's first 16 candidates at random
        return ModelChoice(CostModel(args.pulled, None, target, plugins=args.plugins, learn=False, **scores),
                           warmup=16 if kind.endswith("-w16") else 0, seed=seed)
    if kind == "ucmoh+xgb-blend":  # both, weighted per task by the pairs each ranked right
        return ModelBlend(CostModel(args.pulled, None, target, plugins=args.plugins, learn=False, raw_scores=True),
                          seed=seed, temperature=args.fitness_temperature, shortlist=args.blend_shortlist)
    if kind == "ucmoh+boost":  # trees on its tokens, boosting from its logits
        return TokenBoost(CostModel(args.pulled, None, target, plugins=args.plugins, learn=False, raw_scores=True),
                          seed=seed, temperature=args.fitness_temperature, half_life=args.boost_half_life,
                          window=args.boost_window)
    if kind == "ucmoh-learned":
        if not args.learned:
            raise ValueError("model 'ucmoh-learned' needs --learned (a pulled version)")
        return CostModel(args.learned, None, target, plugins=args.plugins, learn=False, **scores)
    if kind == "xgb":
        return Timed(ms.cost_model.XGBModel(num_tuning_cores=1))
    if kind == "xgb-w16":
        return Timed(ms.cost_model.XGBModel(num_warmup_samples=16, num_tuning_cores=1))
    if kind == "mlp-pretrained":
        if not args.mlp:
            raise ValueError("model 'mlp-pretrained' needs --mlp (tools/ms_mlp_client.py writes it)")
        from ms_mlp_client import SidecarMLP
        return Timed(SidecarMLP(args.mlp))
    if kind == "random":
        return Timed(ms.cost_model.RandomModel(seed=seed))
    raise ValueError(f"unknown model '{kind}' (known: {', '.join(MODELS)})")


def run_label(kind, eps_greedy, raw_scores=False, temperature=TEMPERATURE, shortlist=1.0, half_life=HALF_LIFE,
              window=WINDOW):
    """The run's model name in the results: the cost model, `@top<s>` where the
    blend's XGBModel scored only a shortlist, `@h<n>` where TokenBoost's prior
    had a half-life, `@w<n>` where its trees trained on a window, `@raw` where a registry model's
    logits reached the search as they are, `@T<t>` where their fitness had
    another temperature than SearchFitness's, and the search's random share
    where it is not MetaSchedule's default."""
    label = kind if kind != "ucmoh+xgb-blend" or shortlist >= 1 else f"{kind}@top{shortlist:g}"
    # A half-life or a window is named whatever the defaults: "ucmoh+boost" is a run with neither.
    if kind == "ucmoh+boost" and half_life:
        label += f"@h{half_life:g}"
    if kind == "ucmoh+boost" and window:
        label += f"@w{window}"
    if kind.startswith("ucmoh") and raw_scores:
        label += "@raw"
    elif kind.startswith("ucmoh") and temperature != TEMPERATURE:
        label += f"@T{temperature:g}"
    return label if eps_greedy == DEFAULT_EPS_GREEDY else f"{label}@eps{eps_greedy:g}"


def args_label(kind, args):
    """run_label of `kind` under the command line's options."""
    return run_label(kind, args.eps_greedy, args.raw_scores, args.fitness_temperature, args.blend_shortlist,
                     args.boost_half_life, args.boost_window)


def tune_network(network, dtype, kind, seed, args):
    """One tuning run of every task of `network`; returns its result row."""
    target = host_target(dtype)
    chosen = network_tasks([network], dtype)
    chosen = chosen[:args.tasks] if args.tasks else chosen
    model = cost_model(kind, args, target, seed)  # refused before anything is written
    label = args_label(kind, args)
    work = os.path.join(args.out, "db", f"{network}.{dtype}", f"{label}-s{seed}")
    shutil.rmtree(work, ignore_errors=True)  # an interrupted run starts again
    os.makedirs(work)
    names = [t.name for t in chosen]
    contexts = []
    for task, logger, rand_state in zip(chosen, get_loggers_from_work_dir(work, names), fork_seed(seed, n=len(chosen))):
        mod = tvm.IRModule({"main": task.prim_func()})
        contexts.append(ms.TuneContext(mod=mod, target=target, space_generator=_space(mod, target, dtype),
                                       search_strategy=ms.search_strategy.EvolutionarySearch(
                                           population_size=args.population, eps_greedy=args.eps_greedy),
                                       task_name=task.name, rand_state=rand_state, num_threads=1, logger=logger))
    start = time.perf_counter()
    log = TrialLog(start)
    ms.tune_tasks(tasks=contexts, task_weights=[float(t.weights[network]) for t in chosen], work_dir=work,
                  max_trials_global=args.trials_per_task * len(chosen), num_trials_per_iter=args.per_iter,
                  builder=_builder(args.protocol),
                  runner=_runner(args.protocol), cost_model=model,
                  measure_callbacks=MeasureCallback.create("default") + [log])
    row = {"network": network, "dtype": dtype, "model": label, "cost_model": kind, "eps_greedy": args.eps_greedy,
           "seed": seed, "tasks": names,
           "weights": [t.weights[network] for t in chosen], "trials_per_task": args.trials_per_task,
           "per_iter": args.per_iter, "build_workers": args.protocol.build_workers,
           "build_timeout": args.protocol.build_timeout,
           "target": str(target), "trials": log.trials,
           "wall_s": time.perf_counter() - start, "cost_model_s": model.seconds, "database": work}
    if isinstance(model, Timed):
        row["cost_model_split"] = dict(model.split)  # predict (the search's scoring) and update seconds
        row["handed_scores"] = model.handed.summary()
    if kind.startswith("ucmoh"):
        model_dir = args.learned if kind == "ucmoh-learned" else args.pulled
        # The registry model's CostModel; in the choice its logits' tally counts
        # the batches it judged too, not XGBModel's. The blend hands its own fitness.
        prior = model.prior if kind.startswith(("ucmoh+xgb", "ucmoh+boost")) else model
        handing = model if kind in ("ucmoh+xgb-blend", "ucmoh+boost") else prior
        row.update(model_dir=model_dir, model_sha256=pulled_sha256(model_dir),
                   scores="raw" if handing.fitness is None else "fitness",
                   fitness_temperature=None if handing.fitness is None else handing.fitness.temperature,
                   predict_s=model.predict_seconds, update_s=model.update_seconds, converted=model.converted,
                   predicted=model.predicted, measured=model.measured, unreadable=dict(prior.unreadable),
                   logits=prior.logits.summary(), handed_scores=handing.handed.summary())
    if kind == "ucmoh":
        row["last_update"] = model.model.info.get("last_update")  # its epochs and learning rate, among others
    if kind.startswith("ucmoh+xgb"):
        row["choices"] = model.choices()  # per task: the model that ranked it at the end (blend: weights), both accuracies
        row["online_split"] = dict(model.online_split)  # XGBModel's seconds: search, judge, update
    if kind == "ucmoh+boost":
        row["choices"] = model.choices()  # per task: the trust in the prior its measurements fitted
        row["trees_split"] = dict(model.split)  # the trees' seconds: features, training, scoring
        row["boost_half_life"] = model.half_life  # the prior's half-life in a task's measurements (0: none)
        row["boost_window"] = model.window  # the trees' window in candidates a task (0: all)
    if kind == "ucmoh+xgb-blend":
        row["blend_shortlist"] = model.shortlist  # the share of each search call XGBModel scored
    return row


def pulled_sha256(model_dir):
    """The pulled version's weights digest (its manifest): which pretraining a run
    used, since two pretrainings of the same data can tune differently."""
    with open(os.path.join(model_dir, "manifest.json")) as f:
        return json.load(f)["model_pt_sha256"]


def _append_line(path, line):
    """One write(2) on an O_APPEND file: studies of other models may append to
    the same results file side by side without interleaving their lines."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, line.encode())
    finally:
        os.close(fd)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--pulled", required=True, help="directory written by `registry pull`")
    p.add_argument("--plugins", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--networks", required=True, help="held-out networks, comma-separated")
    p.add_argument("--dtype", default="float32", choices=["float32", "int8"])
    p.add_argument("--tasks", type=int, default=0, help="tune only the network's first N tasks (0: all)")
    p.add_argument("--models", default="ucmoh,xgb,random")
    p.add_argument("--seeds", default="0,1,2")
    p.add_argument("--trials-per-task", type=int, default=64)
    p.add_argument("--per-iter", type=int, default=16)
    p.add_argument("--population", type=int, default=128)
    p.add_argument("--eps-greedy", type=float, default=DEFAULT_EPS_GREEDY,
                   help="share of each batch drawn at random from the search's fresh samples "
                        f"(MetaSchedule's default {DEFAULT_EPS_GREEDY}: none from a batch under 20)")
    # The study's figures build on the one tuning core with the collector's time-out;
    # the CI test builds on both cores (its barely trained model picks candidates
    # LLVM needs up to a minute for, and building them one at a time was its bulk).
    p.add_argument("--build-workers", type=int, default=1, help="candidates built side by side")
    p.add_argument("--build-timeout", type=int,
                   help="seconds before a build is killed and its trial fails (default: the collector's)")
    p.add_argument("--raw-scores", action="store_true",
                   help="give the search a registry model's logits as they are (runs before 2026-12-03), not their fitness")
    p.add_argument("--fitness-temperature", type=float, default=TEMPERATURE,
                   help=f"the registry model's SearchFitness temperature (default {TEMPERATURE:g}; lower: the "
                        "search draws its parents more from the model's best); another value is a run of its own (@T)")
    p.add_argument("--blend-shortlist", type=float, default=1.0,
                   help="ucmoh+xgb-blend: the share of each search call, the prior's best, that XGBModel "
                        "scores too (default 1: all; another value is a run of its own, @top)")
    p.add_argument("--boost-half-life", type=float, default=HALF_LIFE,
                   help="ucmoh+boost: a task's measurements after which the prior's weight in the trees' base "
                        "margin has halved (default 0: never decays; another value is a run of its own, @h)")
    p.add_argument("--boost-window", type=int,
                   help="ucmoh+boost: the trees train on at most this many measured candidates a task, its "
                        f"fastest half and the most recent (default {WINDOW}; 0: all, as every run before "
                        "2026-12-07; a window is named in the run's label, @w)")
    p.add_argument("--learned", help="the pulled version model 'ucmoh-learned' tunes with")
    p.add_argument("--mlp", help="the pretrained SegmentSumMLP model 'mlp-pretrained' tunes with")
    args = p.parse_args(argv)
    # The collector's builder, runner and timing protocol; of them only the builder's
    # workers and time-out are the study's to set.
    builder = ["--build-workers", str(args.build_workers)]
    builder += ["--build-timeout", str(args.build_timeout)] if args.build_timeout is not None else []
    args.protocol = collector_options(["--work", "-", "-o", "-"] + builder)
    if args.protocol.build_workers < 1 or args.protocol.build_timeout < 1:
        print(f"tvm-study: --build-workers and --build-timeout must be at least 1 "
              f"(got {args.protocol.build_workers}, {args.protocol.build_timeout})", file=sys.stderr)
        return 2
    if not args.fitness_temperature > 0 or (args.raw_scores and args.fitness_temperature != TEMPERATURE):
        print(f"tvm-study: --fitness-temperature must be positive and needs the fitness, not --raw-scores "
              f"(got {args.fitness_temperature:g})", file=sys.stderr)
        return 2
    if not 0 <= args.eps_greedy <= 1:
        print(f"tvm-study: --eps-greedy must be between 0 and 1 (got {args.eps_greedy:g})", file=sys.stderr)
        return 2
    unknown = [m for m in args.models.split(",") if m not in MODELS]
    if unknown:
        print(f"tvm-study: unknown model '{unknown[0]}' (known: {', '.join(MODELS)})", file=sys.stderr)
        return 2
    fitness_only = [m for m in ("ucmoh+xgb-blend", "ucmoh+boost") if m in args.models.split(",")]
    if args.raw_scores and fitness_only:
        print(f"tvm-study: model '{fitness_only[0]}' hands the search a fitness: it has no --raw-scores run", file=sys.stderr)
        return 2
    if not 0 < args.blend_shortlist <= 1 or (args.blend_shortlist < 1 and "ucmoh+xgb-blend" not in args.models.split(",")):
        print(f"tvm-study: --blend-shortlist must be a share in (0, 1] and needs model 'ucmoh+xgb-blend' "
              f"(got {args.blend_shortlist:g})", file=sys.stderr)
        return 2
    if args.boost_half_life < 0 or (args.boost_half_life and "ucmoh+boost" not in args.models.split(",")):
        print(f"tvm-study: --boost-half-life must be 0 or a number of measurements and needs model 'ucmoh+boost' "
              f"(got {args.boost_half_life:g})", file=sys.stderr)
        return 2
    if args.boost_window is not None and (args.boost_window < 0 or args.boost_window == 1
                                          or "ucmoh+boost" not in args.models.split(",")):
        print(f"tvm-study: --boost-window must be 0 or at least 2 candidates a task and needs model 'ucmoh+boost' "
              f"(got {args.boost_window})", file=sys.stderr)
        return 2
    args.boost_window = WINDOW if args.boost_window is None else args.boost_window
    if args.dtype == "int8":
        from ucmoh.tvm.vnni import register
        register()
    os.environ.setdefault("TVM_NUM_THREADS", "1")
    path = os.path.join(args.out, "network_results.jsonl")
    rows = [json.loads(line) for line in open(path)] if os.path.exists(path) else []
    done = {(r["network"], r["dtype"], r["model"], r["seed"]) for r in rows}
    for seed in [int(s) for s in args.seeds.split(",")]:
        for network in args.networks.split(","):
            for kind in args.models.split(","):
                if (network, args.dtype, args_label(kind, args), seed) in done:
                    continue
                try:
                    row = tune_network(network, args.dtype, kind, seed, args)
                except (KeyError, ValueError) as e:  # an unknown network, a model without its file, no VNNI
                    print(f"tvm-study: {str(e).strip(chr(39) + chr(34))}", file=sys.stderr)
                    return 2
                _append_line(path, json.dumps(row) + "\n")
                ok = sum(1 for t in row["trials"] if t[1] is not None)
                print(f"{network} {args.dtype} {row['model']} seed {seed}: {ok} of {len(row['trials'])} trials measured, "
                      f"{row['wall_s']:.0f} s (cost model {row['cost_model_s']:.0f} s)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
