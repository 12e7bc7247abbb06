"""Builds collected MetaSchedule candidates for another host, which times them
with the TVM runtime alone (ucmoh.tvm.run_exported).

    python -m ucmoh.tvm.export --traces T.traces.jsonl.gz --target '{"kind": "llvm", "mcpu": "x86-64-v4"}' \\
        [--per-task 16] [--tasks-every 1] [--seed 0] [--jobs 2] -o DIR

The second-CPU measurement of the collector's data (docs/data.md): a host
with no TVM compiler (a lent machine with no network, a board) times the very
candidates this host measured. Each chosen candidate of each chosen task (its
trace replayed on its workload: ucmoh.tvm.trace_replay) is built for the named
target, one thread (`num-cores` 1, the collector's protocol), by TVM's own
builder (ucmoh.tvm.LocalBuilder: `--jobs` worker processes, so a candidate that
crashes LLVM is a failed build, not a dead export), and exported as
DIR/<task>/<program>.so, `program` being its record's line in the records
file the traces index. DIR/<task>/manifest.json, written last, lists them with
their arguments' shapes and dtypes: a task is exported once, and a killed
export redoes only its unfinished task. A candidate the target cannot build is
counted by reason (in the manifest and the summary line), never exported.
Candidates are chosen per task by a
seeded shuffle (so they span the task's range, not its first trials); tasks
every `--tasks-every`-th in file order.
"""
import argparse
import collections
import json
import os
import random
import shutil
import sys

import tvm
import tvm.s_tir.meta_schedule as ms

from ..files import open_text, write_atomic
from . import timing
from .builder import LocalBuilder, export_shared_library
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


def export_task(line, out_dir, target, per_task, seed, builder):
    """Exports one task's chosen candidates; returns (task, exported count or
    None when it was exported before, failures by reason)."""
    form = TaskForm(line)
    task_dir = os.path.join(out_dir, form.task)
    if os.path.exists(os.path.join(task_dir, "manifest.json")):
        return form.task, None, {}
    shutil.rmtree(task_dir, ignore_errors=True)
    os.makedirs(task_dir)
    programs = {c["program"] for c in chosen(form.candidates, per_task, seed)}
    picked = [(c, sch) for c, sch in form.schedules() if c["program"] in programs]
    built = builder.build([ms.builder.BuilderInput(sch.mod, tvm.target.Target(target)) for _, sch in picked])
    entries, failed = [], collections.Counter()
    for (c, sch), result in zip(picked, built):
        if result.error_msg is not None:  # TVM's builder caught it, a crash of LLVM included
            failed[timing.first_error_line(result.error_msg)] += 1
            continue
        name = f"{c['program']}.so"
        shutil.move(result.artifact_path, os.path.join(task_dir, name))
        os.rmdir(os.path.dirname(result.artifact_path))
        entries.append({"program": c["program"], "file": name, "arguments": argument_specs(sch.mod["main"]),
                        "first_run_secs": c["run_secs"]})
    manifest = {"task": form.task, "target": target, "measured_on": json.loads(str(form.target)),
                "candidates": entries, "failed": dict(failed)}
    write_atomic(os.path.join(task_dir, "manifest.json"), json.dumps(manifest) + "\n")
    return form.task, len(entries), failed


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
    builder = LocalBuilder(max_workers=args.jobs, f_export=export_shared_library)
    exported, failed = 0, collections.Counter()
    for line in forms:
        task, count, task_failed = export_task(line, args.output, target, args.per_task, args.seed, builder)
        exported += count or 0
        failed.update(task_failed)
        print(f"{task}: {'already exported' if count is None else f'{count} candidates'}", file=sys.stderr)
    print(json.dumps({"tasks": len(forms), "exported": exported, "failed": dict(failed), "into": args.output}),
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
