"""How a second CPU ranks the candidates the first one measured (issue 36, item 5).

    .venv/bin/python tools/ms_second_cpu.py --first FIRST.traces.jsonl.gz \\
        --second SECOND.traces.jsonl.gz [--again LATENCIES.pass2.jsonl] [--json OUT.json]

FIRST is the collector's traces file of the host that measured the data,
SECOND the traces file `python -m ucmoh.tvm.run_exported programs --traces`
wrote for the second host's times of a subset of the same candidates (their
`trace` identifies them). Per task, over the candidates both measured:
PCA and top-1 (tools/ms_baselines.py's definitions) of the first host's
latencies ranking the second host's — the best a model that knows the first
host perfectly can do on the second without learning it — and, with
`--again` (the second host's second timing pass, run_exported's latencies),
the second host's own noise ceiling (its second pass ranking its first). Also
the median ratio of the two hosts' latencies, and the same per operator kind
(`by_operator`: dense, batch_matmul, conv2d_nhwc, conv2d_nchwc, grouped and
depthwise conv2d apart). Prints one JSON object.
With `--first-records R --first-subset OUT`, also writes the first host's
records (R, the records FIRST indexes) of exactly the candidates the second
timed, in the second's order: the same programs with the first host's
latencies and hardware, to score a model on both hosts alike.
"""
import argparse
import collections
import json
import re
import sys

import numpy as np

from ms_baselines import pca, top1
from ucmoh.files import open_text, write_atomic
from ucmoh.tvm import timing


def per_task(first_forms, second_forms, again):
    """Per task of the second host: how the first host's latencies (and the
    second host's repeat, where `again` has it) rank the second host's."""
    rows = []
    for task, second in second_forms.items():
        first = {key(c): c for c in first_forms[task]["candidates"]}
        pairs = [(timing.latency(first[key(c)]["run_secs"]), timing.latency(c["run_secs"]), again.get((task, c["program"])))
                 for c in second["candidates"]]
        if len(pairs) < 2:
            continue
        here, there, repeat = (np.array(v, dtype=float) for v in zip(*pairs))
        row = {"task": task, "candidates": len(pairs),
               "cross_pca": pca(there, -here), "cross_top1": top1(there, -here),
               "ratio": float(np.median(there / here))}
        if not np.isnan(repeat).any():
            row.update(noise_pca=pca(there, -repeat), noise_top1=top1(there, -repeat))
        rows.append(row)
    return rows


def operator_of(task):
    """The operator kind of a task named network.op.shape[.epilogue]: grouped and
    depthwise conv2d (a `g` group count in the shape) apart from dense conv2d."""
    _, op, shape = task.split(".")[:3]
    return op + (".grouped" if op.startswith("conv2d") and re.search(r"g\d+", shape) else "")


def summarize(rows):
    """Mean (ratio: median) and std over tasks of each per-task figure."""
    summary = {"tasks": len(rows), "candidates": sum(r["candidates"] for r in rows),
               "noise_tasks": sum("noise_pca" in r for r in rows)}
    for name in ("cross_pca", "cross_top1", "noise_pca", "noise_top1", "ratio"):
        values = [r[name] for r in rows if r.get(name) is not None]
        if values:
            summary[name] = float(np.mean(values)) if name != "ratio" else float(np.median(values))
            summary[name + "_std"] = float(np.std(values))
    return summary


def key(candidate):
    """A candidate's identity across traces files: its trace (the line numbers differ)."""
    return candidate["trace"] if isinstance(candidate["trace"], str) else json.dumps(candidate["trace"])


def write_first_subset(first, second, records_path, out):
    """The first host's records of the second host's candidates, in the second's order."""
    with open_text(records_path) as f:
        records = f.readlines()
    lines = []
    for task, form in second.items():
        line_of = {key(c): c["program"] for c in first[task]["candidates"] if "program" in c}
        lines += [records[line_of[key(c)] - 1] for c in form["candidates"]]
    write_atomic(out, "".join(lines))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--first", required=True)
    p.add_argument("--second", required=True)
    p.add_argument("--again", help="the second host's second pass (run_exported time's output)")
    p.add_argument("--json")
    p.add_argument("--first-records", help="the records file FIRST indexes")
    p.add_argument("--first-subset", help="write FIRST's records of the second's candidates here")
    args = p.parse_args()
    if bool(args.first_records) != bool(args.first_subset):
        p.error("--first-records and --first-subset go together")
    with open_text(args.first) as f:
        first = {form["task"]: form for form in map(json.loads, f)}
    with open_text(args.second) as f:
        second = {form["task"]: form for form in map(json.loads, f)}
    again = {}
    if args.again:
        # run_exported's latencies name a candidate by its line in the FIRST
        # records; the second traces keep that candidate's trace, so map through it.
        by_line = {(t, c["program"]): key(c) for t, form in first.items() for c in form["candidates"] if "program" in c}
        line_of = {(t, key(c)): c["program"] for t, form in second.items() for c in form["candidates"]}
        with open_text(args.again) as f:
            for entry in map(json.loads, f):
                for c in entry["candidates"]:
                    if "run_secs" in c:
                        own = line_of.get((entry["task"], by_line[(entry["task"], c["program"])]))
                        if own is not None:
                            again[(entry["task"], own)] = timing.latency(c["run_secs"])
    missing = sorted(set(second) - set(first))
    if missing:
        sys.exit(f"ms_second_cpu: {args.second}: task {missing[0]} is not in {args.first}")
    if args.first_subset:
        write_first_subset(first, second, args.first_records, args.first_subset)
    rows = per_task(first, second, again)
    summary = summarize(rows)
    by_operator = collections.defaultdict(list)
    for r in rows:
        by_operator[operator_of(r["task"])].append(r)
    summary["by_operator"] = {op: summarize(op_rows) for op, op_rows in sorted(by_operator.items())}
    print(json.dumps(summary))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"summary": summary, "tasks": rows}, f, indent=1)


if __name__ == "__main__":
    main()
