"""A MetaSchedule JSON database -> AST JSON Lines (docs/ast-json.md).

    python -m ucmoh.tvm.database WORK_DIR [-o programs.jsonl]

Replays every tuning record's trace on its workload to get the scheduled
TIR, converts it (tir_to_ast) on the record's target, and writes one AST per
measured record with latency_s = the mean of its run_secs and task =
metaschedule.<function>.<workload hash>.<intrinsic>. Failed runs are not
latencies: they are counted, not written; records the converter refuses are
counted by reason. Both counts go to stderr. `registry import metaschedule`
runs this and turns the ASTs into records.
"""
import argparse
import collections
import json
import os
import sys

import tvm
import tvm.s_tir.meta_schedule as ms

from . import timing
from .tir_exprs import UnsupportedTIR
from .tir_to_ast import tir_to_ast

# MetaSchedule stores failed builds and runs with this sentinel latency.
_FAILED_SECONDS = 1e9


def runner_latency(result):
    """The mean of a MetaSchedule RunnerResult's run_secs, or None when the run
    failed: the one reading of a measurement as a latency for the collector,
    the cost models' updates and the studies."""
    if result.error_msg is not None or not result.run_secs:
        return None
    return timing.latency(result.run_secs)


def tuning_records_in_order(work_dir):
    """The tuning records of a MetaSchedule JSON database in the order they were
    measured (its two JSON Lines files read line by line). JSONDatabase's own
    get_all_tuning_records sorts them by mean run time, so "the first of two
    measurements" would be the faster one: an extension round's re-measurement
    could replace a first-round record (tests/tvm/collect_test.sh caught it).
    An int8 run's traces name the VNNI intrinsic the run registered, so it is
    registered here too, as the collector and the studies register it."""
    from .vnni import register
    register()
    with open(os.path.join(work_dir, "database_workload.json")) as f:
        workloads = [ms.database.Workload.from_json(json.loads(line)) for line in f if line.strip()]
    with open(os.path.join(work_dir, "database_tuning_record.json")) as f:
        for line in f:
            if line.strip():
                index, record = json.loads(line)
                yield ms.database.TuningRecord.from_json(record, workloads[index])


def measured_records(work_dir, summary=None):
    """(tuning record, mean latency) of every distinct measured candidate of a
    MetaSchedule JSON database, in the order they were measured; failed builds
    and runs are not latencies: counted in `summary`. A database several tuning
    runs appended to can hold a candidate twice (same workload, same trace and
    decisions): its first measurement is kept, the repeat counted."""
    seen = set()
    for record in tuning_records_in_order(work_dir):
        seconds = [float(s) for s in (record.run_secs or [])]
        if not seconds or max(seconds) >= _FAILED_SECONDS:
            if summary is not None:
                summary["failed runs (not latencies)"] += 1
            continue
        key = (str(record.workload.as_json()[0]), str(record.trace.as_json(remove_postproc=False)))
        if key in seen:
            if summary is not None:
                summary["measured twice (first kept)"] += 1
            continue
        seen.add(key)
        yield record, timing.latency(seconds)


def measured_programs(work_dir, summary):
    """(AST dict, latency) of every measured record; counts the rest in `summary`."""
    for name in ("database_workload.json", "database_tuning_record.json"):
        if not os.path.exists(os.path.join(work_dir, name)):
            raise FileNotFoundError(f"{work_dir}: no {name} (not a MetaSchedule JSON database)")
    for record, latency in measured_records(work_dir, summary):
        sch = tvm.s_tir.Schedule(record.workload.mod)
        record.trace.apply_to_schedule(sch, remove_postproc=False)
        (name, func), = sch.mod.functions.items()
        try:
            ast = tir_to_ast(func, record.target)
        except UnsupportedTIR as e:
            summary[f"refused: {e}"] += 1
            continue
        ast["task"] = f"metaschedule.{name.name_hint}.{int(record.workload.as_json()[0]):016x}.{ast['intrinsic']}"
        ast["latency_s"] = latency
        summary["programs"] += 1
        yield ast


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("work_dir")
    p.add_argument("-o", "--output", help="AST JSON Lines to write (default: stdout)")
    args = p.parse_args(argv)
    summary = collections.Counter()
    try:
        lines = [json.dumps(ast, separators=(",", ":")) for ast in measured_programs(args.work_dir, summary)]
    except FileNotFoundError as e:
        print(f"ucmoh.tvm.database: {e}", file=sys.stderr)
        return 1
    text = "".join(line + "\n" for line in lines)
    if args.output:
        with open(args.output, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    details = ", ".join(f"{n} {what}" for what, n in sorted(summary.items()) if what != "programs")
    print(f"{args.work_dir}: {summary['programs']} measured programs (TVM {tvm.__version__})"
          + (f"; {details}" if details else ""), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
