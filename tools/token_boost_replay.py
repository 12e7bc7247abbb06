"""A tuning session's learning replayed on committed candidates (issue 37): how
well each online model ranks a held-out network's tasks after the first 1, 2,
3 ... batches of 16 measured candidates a task.

    UCMOH_LIBRARY=build/lib/libucmoh.so PYTHONPATH=python:tools .venv/bin/python tools/token_boost_replay.py \
        --pulled OUT/pulled --networks bert_base,resnet18 [--orders 3] [--batches 1,2,3] [--json OUT.json]

Per held-out task of the committed collection (data/metaschedule, the traces
beside the records): the first 16 k candidates of every task of a network
count as measured, each model learns them (the network's tasks together, as
a tuning session's model does) and ranks the task's other candidates; PCA per
task (tools/ranking_metrics.py), tasks averaged per network. Order 0 is the
collection's order, order s > 0 the candidates shuffled with seed s. Models:

  prior       the pulled model, never updated (its logits)
  trees       ucmoh.tvm.token_boost's trees on the flat tokens, from a margin of 0
  boost       the same boosting from the prior's logits times each task's
              fitted trust (ucmoh.tvm.TokenBoost)
  boost-t1    the same with the trust fixed at 1
  xgbmodel    MetaSchedule's XGBModel (TVM's defaults, no warm-up) on PerStoreFeature

The measured candidates here are the collection's (half a random sample,
half a short tuning run's: docs/data.md), not a search's picks, so this
says how fast each model learns a task, not how it steers a search.
"""
import argparse
import json
import os
import sys

import numpy as np
import tvm.s_tir.meta_schedule as ms
import xgboost

import ucmoh
from ms_baselines import Task
from ranking_metrics import pca
from ucmoh.files import open_text
from ucmoh.tvm.hold_out import held_out_tasks
from ucmoh.tvm.token_boost import MAX_TOKENS, ROUNDS, boosted_margins, fitted_trust, train_trees

BATCH = 16


class ReplayTask:
    """One held-out task: its records' latencies, the prior's standardized logits, the flat tokens, the TVM form."""

    def __init__(self, form, lines, model):
        self.name = form["task"]
        self.latency = np.array([json.loads(line)["latency"]["mean_s"] for line in lines])
        text = "".join(lines)
        logits = model.score(text, format="records").astype("float64")
        self.z = (logits - np.median(logits)) / (np.std(logits) or 1.0)  # as SearchFitness's first population
        self.rows = model.flat_features(text, MAX_TOKENS, format="records")
        self.tvm = Task(form, "x86.avx512")  # the same candidates in MetaSchedule's form (records order)
        assert len(self.tvm.latency) == len(lines), self.name


def load(networks, model, data_dir):
    held = held_out_tasks(networks)
    records_path = os.path.join(data_dir, "emeraldrapids.float32.jsonl.gz")
    with open_text(records_path) as f:
        records = f.readlines()
    tasks = []
    with open_text(records_path.replace(".jsonl.gz", ".traces.jsonl.gz")) as f:
        for line in f:
            form = json.loads(line)
            programs = [c["program"] for c in form["candidates"] if "program" in c]
            if form["task"] in held and len(programs) > BATCH:
                tasks.append(ReplayTask(form, [records[p - 1] for p in programs], model))
    return tasks


def xgbmodel_scores(tasks, measured):
    model = ms.cost_model.XGBModel(config=ms.cost_model.xgb_model.XGBConfig(seed=0), num_warmup_samples=0,
                                   num_tuning_cores=2)
    for i, (t, idx) in enumerate(zip(tasks, measured)):
        model.adaptive_training = i < len(tasks) - 1  # retrain on everything after the last task
        results = t.tvm.results()
        model.update(t.tvm.context, [t.tvm.candidates[j] for j in idx], [results[j] for j in idx])
    return [model.predict(t.tvm.context, t.tvm.candidates) for t in tasks]


def replay(tasks, measured, params, rounds, models):
    """Each model's scores of every candidate of every task after learning `measured` (indices per task)."""
    scores = {"prior": [t.z for t in tasks]}
    groups = lambda trusts: [(t.rows[idx], trust * t.z[idx], t.latency[idx])
                             for t, idx, trust in zip(tasks, measured, trusts)]
    fitted = [fitted_trust(t.z[idx], t.latency[idx]) for t, idx in zip(tasks, measured)]
    for name, trusts in (("trees", [0.0] * len(tasks)), ("boost", fitted), ("boost-t1", [1.0] * len(tasks))):
        if name in models:
            booster = train_trees(xgboost, groups(trusts), params, rounds)
            scores[name] = [boosted_margins(xgboost, booster, t.rows, trust * t.z) for t, trust in zip(tasks, trusts)]
    if "xgbmodel" in models:
        scores["xgbmodel"] = xgbmodel_scores(tasks, measured)
    return scores, fitted


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--pulled", required=True)
    p.add_argument("--plugins", default="plugins.json")
    p.add_argument("--networks", default="bert_base,resnet18")
    p.add_argument("--orders", type=int, default=3)
    p.add_argument("--batches", default="1,2,3")
    p.add_argument("--rounds", type=int, default=ROUNDS)
    p.add_argument("--param", action="append", default=[], help="a booster parameter, KEY=VALUE (e.g. eta=0.3)")
    p.add_argument("--models", default="prior,trees,boost,boost-t1,xgbmodel")
    p.add_argument("--json")
    args = p.parse_args()
    params = {k: float(v) if v.replace(".", "", 1).isdigit() else v for k, v in (a.split("=", 1) for a in args.param)}
    models = args.models.split(",")
    data_dir = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "metaschedule")
    model = ucmoh.open(args.pulled, None, plugins=args.plugins)
    rows = []
    for network in args.networks.split(","):
        tasks = load([network], model, data_dir)
        print(f"{network}: {len(tasks)} tasks, {sum(len(t.latency) for t in tasks)} candidates", file=sys.stderr)
        for order in range(args.orders):
            rng = np.random.default_rng(order)
            orders = [np.arange(len(t.latency)) if order == 0 else rng.permutation(len(t.latency)) for t in tasks]
            for k in [int(b) for b in args.batches.split(",")]:
                measured = [o[:BATCH * k] for o in orders]
                rest = [o[BATCH * k:] for o in orders]
                scores, trusts = replay(tasks, measured, params, args.rounds, models)
                row = {"network": network, "order": order, "batches": k, "median_trust": float(np.median(trusts))}
                for name, per_task in scores.items():
                    pcas = [pca(list(t.latency[r]), list(np.asarray(s)[r])) for t, s, r in zip(tasks, per_task, rest)]
                    row[name] = float(np.mean([x for x in pcas if x is not None]))
                rows.append(row)
                print(json.dumps(row), file=sys.stderr)
    print("| network | batches | " + " | ".join(models) + " | median trust |")
    print("|---|---|" + "---|" * (len(models) + 1))
    for network in args.networks.split(","):
        for k in sorted({r["batches"] for r in rows}):
            sel = [r for r in rows if r["network"] == network and r["batches"] == k]
            cells = [f"{np.mean([r[m] for r in sel]):.3f} ± {np.std([r[m] for r in sel]):.3f}" for m in models]
            print(f"| {network} | {k} | " + " | ".join(cells) + f" | {np.median([r['median_trust'] for r in sel]):.2f} |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"params": params, "rounds": args.rounds, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
