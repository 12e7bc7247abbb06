"""XGBoost (the Python package in the project's .venv, the one TVM runs) on the
registry's tokens, on the registry's by_task split: how much of a baseline's
figure is its features' arrangement and how much its XGBoost release.

    build/bin/registry features --dump-tokens R.jsonl.gz > T.jsonl
    build/bin/registry features --dump-ast R.jsonl.gz > A.jsonl      # only for --features *roles
    PYTHONPATH=python:tools .venv/bin/python tools/xgb_on_tokens.py T.jsonl --features flat \
        [--asts A.jsonl] [--splits 0,1,2] [--param lambdarank_pair_method=mean ...]

Features: `flat` is what `registry evaluate --baseline xgb` trains on (the
first 16 tokens zero-padded, then the token count); `kinds` forgets the
tokens' order (per token kind: the maximum and sum of every dimension, and
the count), as a network without positions sees them; `kinds+roles` splits
the load and store tokens further by their buffer's role in the program
(input, intermediate, accumulator, output: from the AST); `flat+roles` adds
the role one-hot to every flat token. --perstore TRACES appends TVM's own
features of each candidate (PerStoreFeature, the input of MetaSchedule's
XGBModel: sum and maximum over its stores, and their count), replayed from the
collector's traces file and joined by record line; candidates without them are
dropped. Parameters are AutoTVM's rank:pairwise
ones, as the registry's baseline sets them (core/src/xgboost_baseline.cpp),
300 rounds; --param adds or overrides one. Prints PCA (the registry's: tools/
ranking_metrics.py) per split seed and per operator kind (tools/compare-scores).
"""
import argparse
import collections
import itertools
import json
import statistics

import numpy as np
import xgboost as xgb
from ms_baselines import held_out
from ranking_metrics import operator_kind, pca

DIM = 72
FLAT_TOKENS = 16
ROLES = ("input", "intermediate", "accumulator", "output")
KIND_OF_TOKEN = {2: "load", 3: "compute", 4: "store"}  # the one-hot dims tok_load / tok_compute / tok_store


def stages(body, out, depth=0):
    for node in body:
        if "loop" in node:
            stages(node["body"], out, depth + 1)
        else:
            out.append((node["stage"], depth))
    return out


def roles(ast):
    """Per stage of the AST, in token order: the role of the buffer it loads or stores."""
    placed = stages(ast["body"], [])
    stored = {s["buffer"] for s, _ in placed if s["kind"] == "store"}
    loaded = {s["buffer"] for s, _ in placed if s["kind"] == "load"}
    out = []
    for i, (s, depth) in enumerate(placed):
        if s["kind"] == "compute":
            out.append(None)
        elif s["kind"] == "store":
            out.append("intermediate" if s["buffer"] in loaded else "output")
        elif any(t["kind"] == "store" and t["buffer"] == s["buffer"] and d == depth for t, d in placed[i + 1:i + 6]):
            out.append("accumulator")  # read, updated and written back at the same depth
        else:
            out.append("intermediate" if s["buffer"] in stored else "input")
    return out


def flat(tokens, stage_roles=None):
    rows = np.zeros((FLAT_TOKENS, DIM + (len(ROLES) if stage_roles else 0)), np.float32)
    for t, row in enumerate(tokens[:FLAT_TOKENS]):
        rows[t, :DIM] = row
        if stage_roles and t >= 2 and stage_roles[t - 2]:
            rows[t, DIM + ROLES.index(stage_roles[t - 2])] = 1
    return np.concatenate([rows.ravel(), [len(tokens)]])


def by_kind(tokens, stage_roles=None):
    groups = ["load", "compute", "store"]
    if stage_roles:
        groups = ["compute"] + [f"{k}:{r}" for k in ("load", "store") for r in ROLES]
    members = collections.defaultdict(list)
    for t, row in enumerate(tokens[2:]):
        kind = next(name for dim, name in KIND_OF_TOKEN.items() if row[dim])
        members[kind if not stage_roles or kind == "compute" else f"{kind}:{stage_roles[t]}"].append(row)
    parts = [tokens[0], tokens[1]]
    for g in groups:
        rows = np.array(members[g]) if members[g] else np.zeros((0, DIM))
        parts += [rows.max(0) if len(rows) else np.zeros(DIM), rows.sum(0), [len(rows)]]
    return np.concatenate(parts)


def perstore_by_line(traces):
    """record line -> TVM's PerStoreFeature of that candidate, pooled over its stores."""
    import tvm.s_tir.meta_schedule as ms
    from ucmoh.files import open_text
    from ucmoh.tvm.trace_replay import TaskForm
    extractor = ms.feature_extractor.PerStoreFeature(extract_workload=False)
    out = {}
    with open_text(traces) as f:
        for line in f:
            form = TaskForm(line)
            context = ms.TuneContext(mod=form.workload, target=form.target, task_name=form.task)
            args_info = ms.arg_info.ArgInfo.from_prim_func(form.workload["main"])
            pairs = [(c["program"], ms.MeasureCandidate(sch, args_info)) for c, sch in form.schedules()]
            if not pairs:
                continue
            for (program, _), rows in zip(pairs, extractor.extract_from(context, [m for _, m in pairs])):
                rows = rows.numpy().astype(np.float32)
                out[program] = np.concatenate([rows.sum(0), rows.max(0), [len(rows)]])
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("tokens")
    ap.add_argument("--asts")
    ap.add_argument("--features", default="flat", choices=["flat", "kinds", "kinds+roles", "flat+roles"])
    ap.add_argument("--perstore", metavar="TRACES", help="also TVM's PerStoreFeature, from the collector's traces")
    ap.add_argument("--splits", default="0,1,2")
    ap.add_argument("--param", action="append", default=[], help="KEY=VALUE: an XGBoost parameter")
    args = ap.parse_args()
    programs = [json.loads(line) for line in open(args.tokens)]
    if args.features.endswith("roles"):
        if not args.asts:
            ap.error(f"--features {args.features} needs --asts (registry features --dump-ast)")
        all_roles = [roles(json.loads(line)) for line in open(args.asts)]
        for n, (p, r) in enumerate(zip(programs, all_roles)):
            if len(all_roles) != len(programs) or len(r) + 2 != len(p["tokens"]):
                ap.error(f"{args.asts}:{n + 1}: not the AST of {args.tokens}:{n + 1} (dump both from one records file)")
    else:
        all_roles = [None] * len(programs)
    featurize = flat if args.features.startswith("flat") else by_kind
    rows = [featurize(np.array(p["tokens"], np.float32), r) for p, r in zip(programs, all_roles)]
    if args.perstore:
        tvm_features = perstore_by_line(args.perstore)
        kept = [i for i, p in enumerate(programs) if p["line"] in tvm_features]
        programs = [programs[i] for i in kept]
        rows = [np.concatenate([rows[i], tvm_features[p["line"]]]) for i, p in zip(kept, programs)]
    X = np.stack(rows).astype(np.float32)
    tasks = [p["task"] for p in programs]
    latency = np.array([p["latency_s"] for p in programs])
    relevance = np.zeros(len(programs))  # the registry's label: the task's best latency / latency
    for task, index in itertools.groupby(sorted(range(len(tasks)), key=tasks.__getitem__), key=tasks.__getitem__):
        index = list(index)
        relevance[index] = latency[index].min() / latency[index]
    params = {"objective": "rank:pairwise", "max_depth": 3, "gamma": 1e-4, "min_child_weight": 1, "eta": 0.3,
              "lambda": 1, "alpha": 0, "tree_method": "hist", "nthread": 1}
    for p in args.param:
        key, value = p.split("=", 1)
        params[key] = json.loads(value) if value[:1].isdigit() or value[:1] == "-" else value
    keys_by_intrinsic = collections.defaultdict(set)
    for p in programs:
        keys_by_intrinsic[p["intrinsic"]].add(p["task"])
    intrinsic_of = {p["task"]: p["intrinsic"] for p in programs}
    per_split, per_kind = [], collections.defaultdict(list)
    per_intrinsic = collections.defaultdict(list)  # intrinsic -> its mean PCA per split
    for seed in (int(s) for s in args.splits.split(",")):
        held = set().union(*(held_out(keys, seed) for keys in keys_by_intrinsic.values()))
        train = sorted((i for i in range(len(tasks)) if tasks[i] not in held), key=tasks.__getitem__)
        test = [i for i in range(len(tasks)) if tasks[i] in held]
        matrix = xgb.DMatrix(X[train], label=relevance[train])
        matrix.set_group([len(list(g)) for _, g in itertools.groupby(train, key=tasks.__getitem__)])
        booster = xgb.train({**params, "seed": seed}, matrix, 300)
        scores = booster.predict(xgb.DMatrix(X[test]))
        grouped = collections.defaultdict(lambda: ([], []))
        for i, score in zip(test, scores):
            grouped[tasks[i]][0].append(latency[i])
            grouped[tasks[i]][1].append(float(score))
        values = {t: pca(*v) for t, v in grouped.items()}
        values = {t: v for t, v in values.items() if v is not None}
        per_split.append(statistics.mean(values.values()))
        for name in keys_by_intrinsic:
            mine = [v for t, v in values.items() if intrinsic_of[t] == name]
            if mine:
                per_intrinsic[name].append(statistics.mean(mine))
        for t, v in values.items():
            per_kind[operator_kind(t)].append(v)
    spread = statistics.pstdev(per_split) if len(per_split) > 1 else 0.0
    print(f"xgboost {xgb.__version__}, features {args.features}{' + PerStoreFeature' if args.perstore else ''} "
          f"({X.shape[1]} columns, {len(programs)} programs): "
          f"PCA {statistics.mean(per_split):.3f} ± {spread:.3f} (per split {' / '.join(f'{v:.3f}' for v in per_split)})")
    if len(per_intrinsic) > 1:
        print("  by intrinsic: " + ", ".join(f"{k} {statistics.mean(v):.3f} ± {statistics.pstdev(v):.3f}"
                                            for k, v in sorted(per_intrinsic.items())))
    print("  by operator kind: " + ", ".join(f"{k} {statistics.mean(v):.3f} ({len(v)})" for k, v in sorted(per_kind.items())))


if __name__ == "__main__":
    main()
