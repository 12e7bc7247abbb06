"""MetaSchedule's own cost models on the collected data, on the registry's split.

    .venv/bin/python tools/ms_baselines.py --traces T.jsonl.gz --records R.jsonl.gz --seeds 0,1,2 -o OUT.jsonl

The baseline the registry's model has to beat inside MetaSchedule: its
XGBModel on TVM's own features (PerStoreFeature), trained offline on the
training tasks' measured candidates (one update per task, as a tuning run
adds them) and asked to rank each held-out task's candidates. The held-out
tasks are the ones `registry train --split by_task --split-seed S` holds out
(PinTaskSplit, core/src/task_split.cpp: per intrinsic, tasks ranked by
sha256("S:task"), the first round(0.2 n) held out), so the rows compare with
`registry train` and `registry evaluate` on the same records. Metrics as
core/src/metrics.cpp: PCA over pairs of distinct latency (tied scores half),
top-1 = best latency / latency of the top-scored candidate (ties against the
model), averaged over held-out tasks. tools/bench-metaschedule runs this with
the registry's rows.
"""
import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import tvm
import tvm.s_tir.meta_schedule as ms
from ucmoh.files import open_text
from ucmoh.tvm import timing
from ucmoh.tvm.trace_replay import TaskForm
from ranking_metrics import pca, top1  # noqa: F401 (tools/held_out_pca.py imports them from here)


def task_unit(seed, key):
    """TaskHashUnit: the top 53 bits of sha256("seed:key") as a number in [0, 1)."""
    top = int(hashlib.sha256(f"{seed}:{key}".encode()).hexdigest()[:16], 16)
    return (top >> 11) * 2.0 ** -53


def held_out(keys, seed, fraction=0.2):
    """PinTaskSplit's held-out tasks among `keys` (one intrinsic's)."""
    ranked = sorted((task_unit(seed, k), k) for k in set(keys))
    held = min(max(int(np.floor(fraction * len(ranked) + 0.5)), 1), len(ranked) - 1)
    return {k for _, k in ranked[:held]}


class Task:
    """One task's candidates in MetaSchedule's form, with their latencies."""

    def __init__(self, form, intrinsic):
        form = TaskForm(form)
        self.name, self.intrinsic = form.task, intrinsic
        self.context = ms.TuneContext(mod=form.workload, target=form.target, task_name=self.name)
        self.candidates, self.latency = [], []
        args_info = ms.arg_info.ArgInfo.from_prim_func(form.workload["main"])
        # only candidates with a record: the registry has none of those the converter refused
        for c, sch in form.schedules():
            self.candidates.append(ms.MeasureCandidate(sch, args_info))
            self.latency.append(timing.latency(c["run_secs"]))

    def results(self):
        return [ms.runner.RunnerResult(run_secs=[tvm.runtime.convert(t)], error_msg=None) for t in self.latency]


def xgb_perstore(train, test, seed):
    """MetaSchedule's XGBModel (TVM's defaults) trained on `train`, scores per held-out task."""
    config = ms.cost_model.xgb_model.XGBConfig(seed=seed)
    model = ms.cost_model.XGBModel(config=config, num_warmup_samples=0, num_tuning_cores=2)
    for i, task in enumerate(train):
        model.adaptive_training = i < len(train) - 1  # retrain on everything after the last task
        model.update(task.context, task.candidates, task.results())
    return {t.name: model.predict(t.context, t.candidates) for t in test}


def perstore_rows(tasks):
    """PerStoreFeature (with the workload block, as MLPModel extracts it) of every
    candidate of `tasks`: (rows, segments, labels = task's best / latency, task ids)."""
    extractor = ms.feature_extractor.PerStoreFeature(extract_workload=True)
    features, segments, labels, task_ids = [], [], [], []
    for t, task in enumerate(tasks):
        rows = [f.numpy().astype("float32") for f in extractor.extract_from(task.context, task.candidates)]
        best = min(task.latency)
        for r, latency in zip(rows, task.latency):
            features.append(r)
            segments.append(len(r))
            labels.append(best / latency)
            task_ids.append(t)
    return np.concatenate(features), np.array(segments), np.array(labels, dtype="float32"), np.array(task_ids)


def mlp_perstore(train, test, seed):
    """MetaSchedule's MLPModel (SegmentSumMLP, LambdaRank) on PerStoreFeature with
    the workload block, trained offline on `train` by tools/ms_mlp.py under
    Debian's python3-torch (the .venv has no torch)."""
    features, segments, labels, task_ids = perstore_rows(train + test)
    with tempfile.TemporaryDirectory() as tmp:
        np.savez(os.path.join(tmp, "features.npz"), features=features, segments=segments, labels=labels,
                 task=task_ids, train=task_ids < len(train))
        subprocess.run([TORCH_PYTHON, os.path.join(os.path.dirname(__file__), "ms_mlp.py"),
                        os.path.join(tmp, "features.npz"), os.path.join(tmp, "scores.npy"), str(seed)], check=True)
        scores = np.load(os.path.join(tmp, "scores.npy"))
    offsets = np.cumsum([0] + [len(t.latency) for t in train + test])
    return {t.name: scores[offsets[len(train) + i]:offsets[len(train) + i + 1]] for i, t in enumerate(test)}


def load_tasks(traces_files, records_files, keep=lambda name: True):
    """Every task of the collector's traces with at least two converted
    candidates (those the registry has records of) whose name `keep` accepts."""
    tasks = []
    for traces, records in zip(traces_files, records_files):
        with open_text(records) as f:
            intrinsics = [json.loads(line)["intrinsic"] for line in f]
        with open_text(traces) as f:
            for line in f:
                form = json.loads(line)
                programs = [c["program"] for c in form["candidates"] if "program" in c]
                if len(programs) >= 2 and keep(form["task"]):
                    tasks.append(Task(form, intrinsics[programs[0] - 1]))
    return tasks


TORCH_PYTHON = os.environ.get("UCMOH_TORCH_PYTHON", "/usr/bin/python3")  # Debian's python3-torch (tools/setup)
MODELS = {"xgb-perstore": xgb_perstore, "mlp-perstore": mlp_perstore}


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--traces", nargs="+", required=True, help="database forms written by the collector (--traces)")
    p.add_argument("--records", nargs="+", required=True, help="the records of the same collection, in order")
    p.add_argument("--seeds", default="0,1,2")
    p.add_argument("--test-fraction", type=float, default=0.2)
    p.add_argument("--models", default=",".join(MODELS))
    p.add_argument("-o", "--output", required=True)
    args = p.parse_args()
    from ucmoh.tvm.vnni import register
    register()  # int8 traces name dot_16x4_vnni (ucmoh/tvm/vnni.py)
    tasks = load_tasks(args.traces, args.records)
    print(f"{len(tasks)} tasks, {sum(len(t.latency) for t in tasks)} candidates", file=sys.stderr)
    with open(args.output, "a") as out:
        for seed in [int(s) for s in args.seeds.split(",")]:
            held = set()
            for intrinsic in {t.intrinsic for t in tasks}:
                held |= held_out([t.name for t in tasks if t.intrinsic == intrinsic], seed, args.test_fraction)
            train = [t for t in tasks if t.name not in held]
            test = [t for t in tasks if t.name in held]
            for name in args.models.split(","):
                start = time.perf_counter()
                scores = MODELS[name](train, test, seed)
                per_task = [(pca(t.latency, list(scores[t.name])), top1(t.latency, list(scores[t.name]))) for t in test]
                pcas = [a for a, _ in per_task if a is not None]
                row = {"model": name, "split_seed": seed, "train_tasks": len(train), "test_tasks": len(test),
                       "pca": float(np.mean(pcas)), "top1": float(np.mean([b for _, b in per_task])),
                       "seconds": time.perf_counter() - start, "held_out": sorted(held)}
                out.write(json.dumps(row) + "\n")
                out.flush()
                print(f"{name} split seed {seed}: PCA {row['pca']:.4f} top-1 {row['top1']:.4f} "
                      f"({len(test)} held-out tasks, {row['seconds']:.0f} s)", file=sys.stderr)


if __name__ == "__main__":
    main()
