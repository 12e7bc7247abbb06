"""Builds collected MetaSchedule candidates for another host, which times them
with the TVM runtime alone (ucmoh.tvm.run_exported).

    python -m ucmoh.tvm.export --traces T.traces.jsonl.gz --target '{"kind": "llvm", "mcpu": "x86-64-v4"}' \\
        [--per-task 16] [--tasks-every 1] [--seed 0] [--jobs 2] -o DIR

The second-CPU measurement of the collector's data (docs/data.md): a host
with no TVM compiler (a lent machine with no network, a board) times the very
candidates this host measured. Each chosen candidate of each chosen task (its
trace replayed on its workload: ucmoh.tvm.trace_replay) is built for the named
target, one thread (`num-cores` 1, the collector's protocol), and exported as
DIR/<task>/<program>.so, `program` being its record's line in the records
file the traces index. DIR/<task>/manifest.json, written last, lists them with
their arguments' shapes and dtypes: a task is exported once, and a killed
export redoes only its unfinished task. Candidates are chosen per task by a
seeded shuffle (so they span the task's range, not its first trials); tasks
every `--tasks-every`-th in file order.
"""
import argparse
import json
import multiprocessing
import os
import random
import shutil
import sys

import tvm
import tvm.s_tir.meta_schedule as ms

from ..files import open_text, write_atomic
from .builder import build
from .trace_replay import TaskForm


def chosen(candidates, per_task, seed):
    """The converted candidates a task exports: `per_task` of them, shuffled by `seed`."""
    converted = [c for c in candidates if "program" in c]
    random.Random(seed).shuffle(converted)
    return converted[:per_task]


def argument_specs(func):
    """[(shape, dtype)] of a PrimFunc's tensor arguments, in call order, as
    MetaSchedule's runner allocates them."""
    return [([int(d) for d in a.shape], str(a.dtype)) for a in ms.arg_info.ArgInfo.from_prim_func(func)]


def export_task(job):
    """Exports one task's chosen candidates; returns (task, exported count)."""
    line, out_dir, target, per_task, seed = job
    form = TaskForm(line)
    task_dir = os.path.join(out_dir, form.task)
    if os.path.exists(os.path.join(task_dir, "manifest.json")):
        return form.task, None
    shutil.rmtree(task_dir, ignore_errors=True)
    os.makedirs(task_dir)
    programs = {c["program"] for c in chosen(form.candidates, per_task, seed)}
    entries = []
    for c, sch in form.schedules():
        if c["program"] not in programs:
            continue
        func = sch.mod["main"]
        name = f"{c['program']}.so"
        build(sch.mod, tvm.target.Target(target), None).export_library(os.path.join(task_dir, name))
        entries.append({"program": c["program"], "file": name, "arguments": argument_specs(func),
                        "first_run_secs": c["run_secs"]})
    manifest = {"task": form.task, "target": target, "measured_on": json.loads(str(form.target)), "candidates": entries}
    write_atomic(os.path.join(task_dir, "manifest.json"), json.dumps(manifest) + "\n")
    return form.task, len(entries)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--traces", required=True, help="the collector's database forms (*.traces.jsonl[.gz])")
    p.add_argument("--target", required=True, help='the other host\'s LLVM target as TVM JSON, e.g. \'{"kind": "llvm", "mcpu": "x86-64-v4"}\'')
    p.add_argument("--per-task", type=int, default=16)
    p.add_argument("--tasks-every", type=int, default=1)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("-o", "--output", required=True, help="the directory to export into (resumed if it exists)")
    args = p.parse_args(argv)
    try:
        target = json.loads(args.target)
        if not isinstance(target, dict) or target.get("kind") != "llvm":
            raise ValueError(f"--target '{args.target}' is not an LLVM CPU target")
        target = dict(json.loads(str(tvm.target.Target(target))), **{"num-cores": 1})  # the collector's: one thread
        with open_text(args.traces) as f:
            forms = f.readlines()[::max(1, args.tasks_every)]
    except (OSError, ValueError, KeyError) as e:
        print(f"export: {e}", file=sys.stderr)
        return 2
    os.makedirs(args.output, exist_ok=True)
    jobs = [(line, args.output, target, args.per_task, args.seed) for line in forms]
    exported = 0
    with multiprocessing.Pool(args.jobs) as pool:
        for task, count in pool.imap_unordered(export_task, jobs):
            exported += count or 0
            print(f"{task}: {'already exported' if count is None else f'{count} candidates'}", file=sys.stderr)
    print(f"exported {exported} candidates of {len(forms)} tasks into {args.output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
