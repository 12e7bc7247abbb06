"""Re-featurizes collected MetaSchedule records with today's converter, measuring nothing.

    python -m ucmoh.tvm.reconvert --traces T.traces.jsonl.gz --records T.jsonl.gz -o OUT.jsonl.gz [--jobs 2]

The collector keeps every candidate's workload and trace beside its record
(docs/data.md). This replays each trace on its workload and converts the
scheduled function again (ucmoh.tvm.tir_to_ast), so a converter that learns
more about a program (feature schema 3's loop strides) applies to the
committed data. Each record keeps its latency, hardware and provenance; only
its `ast` (and `schedule`, the template inputs) is replaced. A candidate the
converter now refuses, or a record that does not match its trace (another
task, a missing line), stops the run with one line naming it, and nothing is
written.

Each form converts for its own target, so the traces file of a second CPU's
timings (`ucmoh.tvm.run_exported programs --traces-out`: the collection's
candidates built for that CPU) gives that CPU's programs: on an AVX2-only CPU
x86.avx2 (8 fp32 lanes) where the collection host's were x86.avx512. A
record's `intrinsic` is always its new AST's.
"""
import argparse
import json
import multiprocessing
import sys

import tvm

from ..files import open_text, write_atomic
from .tir_exprs import UnsupportedTIR
from .tir_to_ast import tir_to_ast
from .trace_replay import TaskForm


def convert_form(line):
    """(program line, AST) of every converted candidate of one task's database form."""
    form = TaskForm(line)
    out = []
    for c, sch in form.schedules():
        try:
            ast = tir_to_ast(sch.mod["main"], form.target, task=form.task)
        except UnsupportedTIR as e:
            raise ValueError(f"task {form.task}, program {c['program']}: the converter now refuses it: {e}") from None
        del ast["task"]
        out.append((c["program"], form.task, ast))
    return out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--traces", required=True, help="the collector's database forms (*.traces.jsonl[.gz])")
    p.add_argument("--records", required=True, help="the records those forms' `program` lines index")
    p.add_argument("-o", "--output", required=True)
    p.add_argument("--jobs", type=int, default=2)
    args = p.parse_args(argv)
    try:
        with open_text(args.records) as f:
            records = [json.loads(line) for line in f]
        with open_text(args.traces) as f:
            forms = f.readlines()
        with multiprocessing.Pool(args.jobs) as pool:
            converted = [c for chunk in pool.imap(convert_form, forms) for c in chunk]
        for line, task, ast in converted:
            if not 1 <= line <= len(records) or records[line - 1]["task"]["key"] != task:
                raise ValueError(f"{args.records}: line {line} is not a record of task {task}")
            records[line - 1]["ast"] = ast
            records[line - 1]["intrinsic"] = ast["intrinsic"]
            records[line - 1]["schedule"] = ast["template_inputs"]
        if len(converted) != len(records):
            raise ValueError(f"{args.traces}: {len(converted)} converted candidates for {len(records)} records")
    except (OSError, ValueError, KeyError) as e:
        print(f"reconvert: {e}", file=sys.stderr)
        return 1
    write_atomic(args.output, "".join(json.dumps(r, separators=(",", ":")) + "\n" for r in records))
    print(f"reconverted {len(records)} records of {len(forms)} tasks into {args.output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
