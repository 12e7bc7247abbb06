#!/usr/bin/env python3
"""Where a registry model's ranking steered tuning runs: for each task, each
run's best latency, and the prior's percentile (its score's rank among every
candidate the runs measured for that task, 1 = the prior's favourite) of each
run's ten fastest candidates and the median of all it measured.

    registry import metaschedule OUT/db/NET.DTYPE/MODEL-sSEED -o R.jsonl
    registry --db REGISTRY predict --model ucmoh@12 --data R.jsonl --json > P.json
    tools/prior_percentiles.py xgb=R1.jsonl:P1.json boost=R2.jsonl:P2.json

A search that only measures what the prior likes shows high medians; fast
candidates at low percentiles are ones the prior would have kept it from.
"""
import argparse
import json
import statistics
from collections import defaultdict


def load_run(spec):
    """NAME=RECORDS:SCORES -> (name, {task key: [(latency s, prior score)]})."""
    name, _, files = spec.partition("=")
    records, _, scores = files.partition(":")
    if not name or not records or not scores:
        raise SystemExit(f"prior_percentiles: '{spec}': expected NAME=RECORDS.jsonl:PREDICT.json")
    with open(scores) as f:
        score_list = json.load(f)["scores"]
    by_task = defaultdict(list)
    with open(records) as f:
        lines = [line for line in f if line.strip()]
    if len(lines) != len(score_list):
        raise SystemExit(f"prior_percentiles: {records}: {len(lines)} records but {scores} has {len(score_list)} scores")
    for line, score in zip(lines, score_list):
        record = json.loads(line)
        by_task[record["task"]["key"]].append((record["latency"]["min_s"], score))
    return name, by_task


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("runs", nargs="+", metavar="NAME=RECORDS:SCORES")
    args = p.parse_args()
    runs = [load_run(spec) for spec in args.runs]
    tasks = sorted(set.intersection(*(set(by_task) for _, by_task in runs)))
    print("| task | run | measured | best (ms) | prior percentile of its 10 fastest | median percentile of all |")
    print("|---|---|---|---|---|---|")
    for task in tasks:
        scores = sorted(s for _, by_task in runs for _, s in by_task[task])
        percentile = lambda s: sum(a <= s for a in scores) / len(scores)
        for name, by_task in runs:
            measured = sorted(by_task[task])
            fastest = " ".join(f"{percentile(s):.2f}" for _, s in measured[:10])
            median = statistics.median(percentile(s) for _, s in measured)
            print(f"| `{task}` | {name} | {len(measured)} | {measured[0][0] * 1e3:.3f} | {fastest} | {median:.2f} |")


if __name__ == "__main__":
    main()
