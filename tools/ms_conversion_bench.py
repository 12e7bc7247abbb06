"""Time of the TIR -> AST conversion per MetaSchedule candidate (issue 36's target: <= 1 ms).

    PYTHONPATH=python .venv/bin/python tools/ms_conversion_bench.py TRACES.jsonl.gz [--limit N] [--against REV]

Replays each candidate's trace on its workload (not timed: MetaSchedule hands
the cost model scheduled functions), then times `tir_to_ast` on the scheduled
PrimFunc, as ucmoh.tvm.CostModel.predict calls it. Prints the median and mean
per candidate, by operator. With --against REV the converter of git revision
REV runs too, the two alternated candidate by candidate in this one process
(so both see the same machine load), and both are printed, with the number of
candidates whose two ASTs differ (0 for a change that only makes it faster).
"""
import argparse
import collections
import importlib
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import tvm

from ucmoh.files import open_text
from ucmoh.tvm.trace_replay import TaskForm
from ucmoh.tvm.tir_to_ast import tir_to_ast


def converter_at(revision, work):
    """tir_to_ast and UnsupportedTIR of the package at a git revision (imported as ucmoh_REV)."""
    name = "ucmoh_" + revision.replace("-", "_").replace(".", "_")
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    archive = subprocess.run(["git", "-C", root, "archive", revision, "python/ucmoh"], check=True,
                             capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", work], input=archive, check=True)
    os.rename(os.path.join(work, "python", "ucmoh"), os.path.join(work, name))
    sys.path.insert(0, work)
    return (importlib.import_module(name + ".tvm.tir_to_ast").tir_to_ast,
            importlib.import_module(name + ".tvm.tir_exprs").UnsupportedTIR)


def summary(seconds):
    every = [s for v in seconds.values() for s in v]
    return {"candidates": len(every), "median_ms": 1e3 * float(np.median(every)),
            "mean_ms": 1e3 * float(np.mean(every)), "p90_ms": 1e3 * float(np.percentile(every, 90)),
            "by_op_median_ms": {op: 1e3 * float(np.median(v)) for op, v in seconds.items()}}


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("traces", nargs="+")
    p.add_argument("--limit", type=int, default=0, help="candidates per task (0: all)")
    p.add_argument("--against", help="a git revision whose converter runs alternately with this one")
    args = p.parse_args()
    from ucmoh.tvm.tir_exprs import UnsupportedTIR
    converters = {"current": (tir_to_ast, UnsupportedTIR)}
    work = tempfile.TemporaryDirectory()
    if args.against:
        converters[args.against] = converter_at(args.against, work.name)
    seconds = {name: collections.defaultdict(list) for name in converters}
    order, differ = list(converters), 0
    for path in args.traces:
        with open_text(path) as f:
            for line in f:
                form = TaskForm(line)
                op = form.task.split(".")[1]
                for _, sch in form.schedules(converted_only=False, limit=args.limit):
                    func = sch.mod["main"]
                    order.reverse()  # alternate which converter runs first
                    times, asts = {}, {}
                    for name in order:
                        convert, refusal = converters[name]
                        start = time.perf_counter()
                        try:
                            asts[name] = convert(func, form.target, task=form.task)
                        except refusal:
                            break
                        times[name] = time.perf_counter() - start
                    if len(times) == len(converters):  # refused by none
                        for name, t in times.items():
                            seconds[name][op].append(t)
                        differ += len({json.dumps(a, sort_keys=True) for a in asts.values()}) > 1
    result = {name: summary(s) for name, s in seconds.items()} if args.against else summary(seconds["current"])
    if args.against:
        result["asts_differ"] = differ
    print(json.dumps(result))


if __name__ == "__main__":
    main()
