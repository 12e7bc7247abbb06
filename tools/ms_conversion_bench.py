"""Time of the TIR -> AST conversion per MetaSchedule candidate (issue 36's target: <= 1 ms).

    .venv/bin/python tools/ms_conversion_bench.py TRACES.jsonl.gz [--limit N]

Replays each candidate's trace on its workload (not timed: MetaSchedule hands
the cost model scheduled functions), then times `tir_to_ast` on the scheduled
PrimFunc, as ucmoh.tvm.CostModel.predict calls it. Prints the median and mean
per candidate, by operator.
"""
import argparse
import collections
import json
import time

import numpy as np
import tvm
from ucmoh.files import open_text

from ucmoh.tvm.tir_exprs import UnsupportedTIR
from ucmoh.tvm.tir_to_ast import tir_to_ast


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("traces", nargs="+")
    p.add_argument("--limit", type=int, default=0, help="candidates per task (0: all)")
    args = p.parse_args()
    seconds = collections.defaultdict(list)
    for path in args.traces:
        with open_text(path) as f:
            for line in f:
                form = json.loads(line)
                if "int8" in form["task"]:
                    from ucmoh.tvm.vnni import register
                    register()
                mod = tvm.ir.load_json(json.dumps(form["workload"]))
                target = tvm.target.Target(form["target"])
                op = form["task"].split(".")[1]
                for c in form["candidates"][:args.limit or None]:
                    sch = tvm.s_tir.Schedule(mod)
                    tvm.s_tir.schedule.Trace.apply_json_to_schedule(c["trace"], sch)
                    func = sch.mod["main"]
                    start = time.perf_counter()
                    try:
                        tir_to_ast(func, target, task=form["task"])
                    except UnsupportedTIR:
                        continue
                    seconds[op].append(time.perf_counter() - start)
    every = [s for v in seconds.values() for s in v]
    print(json.dumps({"candidates": len(every), "median_ms": 1e3 * float(np.median(every)),
                      "mean_ms": 1e3 * float(np.mean(every)), "p90_ms": 1e3 * float(np.percentile(every, 90)),
                      "by_op_median_ms": {op: 1e3 * float(np.median(v)) for op, v in seconds.items()}}))


if __name__ == "__main__":
    main()
