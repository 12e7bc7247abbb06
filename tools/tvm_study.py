"""Issue 13's tuning study: MetaSchedule ranked by (a) our model, pulled from a
registry, (b) MetaSchedule's XGBModel, (c) its random model, with equal trial
budgets, on several workloads and seeds. Run through tools/tvm-study, which
sets the environment; tools/plot-tvm-study turns the results into curves and
the table in docs/journal/benchmarks-2026-11.md.

Every run appends one JSON line to OUT/results.jsonl (resumable: finished runs
are skipped) and keeps its MetaSchedule database in OUT/db/<workload>/<run>/
for `registry import metaschedule`. The per-trial latencies come from a
measure callback, in the order MetaSchedule measured them (its database lists
records best first). Failed builds or runs are logged as null, never as
latencies. Every model builds with ucmoh.tvm.LocalBuilder (TVM's default one
spends 22 s per batch re-registering tensor intrinsics: builder.py).
"""
import argparse
import collections
import json
import os
import time

import tvm
import tvm.s_tir.meta_schedule as ms
from tvm import te
from tvm.s_tir.meta_schedule.measure_callback import MeasureCallback

import ucmoh
from ucmoh.tvm import CostModel, LocalBuilder
from ucmoh.tvm.database import measured_programs
from ranking_metrics import pca  # tools/ranking_metrics.py: the registry's PCA
from tvm_network_study import TrialLog


def _dense(m, n, k):
    x = te.placeholder((m, k), "float32", name="X")
    w = te.placeholder((n, k), "float32", name="W")
    r = te.reduce_axis((0, k), "k")
    y = te.compute((m, n), lambda i, j: te.sum(x[i, r] * w[j, r], axis=r), name="Y")
    return [x, w, y]


def _batch_matmul(b, m, n, k):
    x = te.placeholder((b, m, k), "float32", name="X")
    y = te.placeholder((b, n, k), "float32", name="Y")
    r = te.reduce_axis((0, k), "k")
    z = te.compute((b, m, n), lambda t, i, j: te.sum(x[t, i, r] * y[t, j, r], axis=r), name="Z")
    return [x, y, z]


def _conv2d(h, w, c, k, rs):
    """NHWC conv2d, stride 1, on an input already padded to keep H x W (ResNet-50's shapes)."""
    pad = rs // 2
    data = te.placeholder((1, h + 2 * pad, w + 2 * pad, c), "float32", name="I")
    weight = te.placeholder((rs, rs, c, k), "float32", name="F")
    rr, rt, rc = te.reduce_axis((0, rs), "r"), te.reduce_axis((0, rs), "s"), te.reduce_axis((0, c), "c")
    out = te.compute((1, h, w, k), lambda n, y, x, f: te.sum(data[n, y + rr, x + rt, rc] * weight[rr, rt, rc, f],
                                                              axis=[rr, rt, rc]), name="O")
    return [data, weight, out]


WORKLOADS = {
    "bert.dense.m128n768k768": lambda: _dense(128, 768, 768),
    "bert.dense.m128n3072k768": lambda: _dense(128, 3072, 768),
    "bert.batch_matmul.b12m128n128k64": lambda: _batch_matmul(12, 128, 128, 64),
    "resnet50.conv2d.h56w56c64k64r3": lambda: _conv2d(56, 56, 64, 64, 3),
    "resnet50.conv2d.h56w56c64k256r1": lambda: _conv2d(56, 56, 64, 256, 1),
    "resnet50.conv2d.h14w14c256k256r3": lambda: _conv2d(14, 14, 256, 256, 3),
}


def _cost_model(kind, args, target):
    if kind == "ucmoh":
        return CostModel(args.pulled, None, target, plugins=args.plugins)
    if kind == "ucmoh-learned":  # the version tools/tvm-study-learn made from the first seed's databases
        return CostModel(args.learned, None, target, plugins=args.plugins)
    if kind == "xgb":
        return ms.cost_model.XGBModel(num_warmup_samples=args.xgb_warmup, num_tuning_cores=args.cores)
    return "random"


def tune_once(workload, kind, seed, args, target):
    """One tuning run; returns its result row."""
    mod = tvm.IRModule({"main": te.create_prim_func(WORKLOADS[workload]())})
    work = os.path.join(args.out, "db", workload, f"{kind}-s{seed}")
    os.makedirs(work, exist_ok=True)
    log, model = TrialLog(time.perf_counter()), _cost_model(kind, args, target)
    start = time.perf_counter()
    ms.tune_tir(mod, target, work, max_trials_global=args.trials, num_trials_per_iter=args.per_iter,
                builder=LocalBuilder(max_workers=args.cores), cost_model=model,
                measure_callbacks=MeasureCallback.create("default") + [log],
                strategy=ms.search_strategy.EvolutionarySearch(population_size=args.population),
                num_tuning_cores=args.cores, seed=seed)
    wall = time.perf_counter() - start
    row = {"workload": workload, "model": kind, "seed": seed, "trials": args.trials, "latencies": [latency for _, latency, _ in log.trials],
           "wall_s": wall, "database": work}
    if kind.startswith("ucmoh"):
        row.update(cost_model_s=model.seconds, predict_s=model.predict_seconds, update_s=model.update_seconds,
                   predicted=model.predicted, converted=model.converted, measured=model.measured)
    return row


def pairwise_accuracy(scores, latencies):
    """The registry's PCA (tied scores half right); NaN where no two latencies differ."""
    value = pca(latencies, scores)
    return float("nan") if value is None else value


def zero_shot(workload, seed, rows, args):
    """PCA of the unchanged pulled model on every candidate the seed's runs measured."""
    programs = [p for r in rows if r["workload"] == workload and r["seed"] == seed
                for p in measured_programs(r["database"], collections.Counter())]
    model = ucmoh.open(args.pulled, None, plugins=args.plugins)
    scores = model.score(programs)
    return {"workload": workload, "seed": seed, "candidates": len(programs),
            "zero_shot_pca": pairwise_accuracy(scores, [p["latency_s"] for p in programs])}


def learned(args):
    """PCA of the pulled model (before) and of `args.after` (the version that
    learned the seed-0 databases) on each workload's seed-1 candidates."""
    rows = [json.loads(line) for line in open(os.path.join(args.out, "results.jsonl"))]
    seed = int(args.seeds.split(",")[-1])
    before = ucmoh.open(args.pulled, None, plugins=args.plugins)
    after = ucmoh.open(args.after, None, plugins=args.plugins)
    with open(os.path.join(args.out, "learned.jsonl"), "w") as f:
        for workload in args.workloads.split(","):
            programs = [p for r in rows if r["workload"] == workload and r["seed"] == seed and "database" in r
                        for p in measured_programs(r["database"], collections.Counter())]
            latencies = [p["latency_s"] for p in programs]
            row = {"workload": workload, "seed": seed, "candidates": len(programs),
                   "pca_before": pairwise_accuracy(before.score(programs), latencies),
                   "pca_after": pairwise_accuracy(after.score(programs), latencies)}
            f.write(json.dumps(row) + "\n")
            print(f"{workload}: PCA {row['pca_before']:.3f} -> {row['pca_after']:.3f} on {len(programs)} candidates")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--pulled", required=True, help="directory written by `registry pull`")
    p.add_argument("--plugins", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--workloads", default=",".join(WORKLOADS))
    p.add_argument("--models", default="ucmoh,xgb,random")
    p.add_argument("--seeds", default="0,1")
    p.add_argument("--trials", type=int, default=32)
    p.add_argument("--per-iter", type=int, default=8)
    p.add_argument("--population", type=int, default=256)
    p.add_argument("--xgb-warmup", type=int, default=16)
    p.add_argument("--cores", type=int, default=1)
    p.add_argument("--after", help="a pulled version that learned the first seed's databases: compare, do not tune")
    p.add_argument("--learned", help="the pulled version model 'ucmoh-learned' tunes with")
    args = p.parse_args()
    if args.after:
        return learned(args)
    target = tvm.target.Target({"kind": "llvm", "mcpu": "core-avx2", "num-cores": args.cores})
    path = os.path.join(args.out, "results.jsonl")
    rows = [json.loads(line) for line in open(path)] if os.path.exists(path) else []
    done = {(r["workload"], r.get("model"), r["seed"]) for r in rows}
    for seed in [int(s) for s in args.seeds.split(",")]:
        for workload in args.workloads.split(","):
            for kind in args.models.split(","):
                if (workload, kind, seed) in done:
                    continue
                row = tune_once(workload, kind, seed, args, target)
                _append(path, row)
                rows.append(row)
                print(f"{workload} {kind} seed {seed}: best {min(l for l in row['latencies'] if l) * 1e6:.1f} us, "
                      f"{row['wall_s']:.0f} s", flush=True)
            if (workload, None, seed) not in done:
                _append(path, zero_shot(workload, seed, rows, args))


def _append(path, row):
    with open(path, "a") as f:
        f.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    main()
