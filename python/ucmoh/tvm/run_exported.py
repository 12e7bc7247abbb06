"""Times the candidates ucmoh.tvm.export built, on a host that has only the
TVM runtime (no compiler, no network), and turns the times into AST programs.

    python -m ucmoh.tvm.run_exported time DIR -o LATENCIES.jsonl [--jobs 8]
    python -m ucmoh.tvm.run_exported programs --records R.jsonl.gz --latencies LATENCIES.jsonl \\
        --hardware HW.json -o OUT.ast.jsonl [--traces T.traces.jsonl.gz --traces-out OUT.traces.jsonl.gz]
    registry import ast OUT.ast.jsonl -o OUT.jsonl

`time` follows the collector's timing protocol (docs/data.md; the defaults
are ucmoh.tvm.timing's): arguments filled at random once, TVM's time_evaluator with
`number` runs per repeat raised until a repeat lasts `min_repeat_ms`,
`repeat` repeats, no cache flush, one thread per candidate (TVM_NUM_THREADS=1)
— and `--jobs` tasks at once, each in its own process. It needs `import tvm`
to find libtvm_runtime only: without libtvm_compiler TVM loads in its
runtime-only mode. One line per task is appended to the output as the task
finishes ({"task", "target", "candidates": [{"program", "run_secs"} or
{"program", "error"}]}); a rerun skips the tasks already there, so a killed run loses only
the tasks in flight. A failed candidate is counted by reason, never a latency.

`programs` joins those times with the records the candidates came from (their
`program` line numbers): one AST program per timed candidate, with the mean of
its run_secs as latency_s and the timing host's hardware (the `hardware`
object of `ucmoh-measure-x86_64 probe x86.avx512` run there), so the records
`registry import ast` makes of them carry that host, not this one. With
`--traces`, also the timed candidates' database forms (the traces file beside a
records file, docs/data.md), their run_secs the timing host's and their
`program` the line of their record in OUT.
"""
import argparse
import collections
import json
import multiprocessing
import os
import sys

os.environ.setdefault("TVM_NUM_THREADS", "1")  # before TVM starts its thread pool

import numpy as np  # noqa: E402

from . import timing  # noqa: E402


def _random_argument(shape, dtype, rng):
    if dtype.startswith(("int", "uint")):
        info = np.iinfo(dtype)
        return rng.integers(max(info.min, -64), min(info.max, 64), size=shape, dtype=dtype)
    return rng.standard_normal(size=shape).astype(dtype)


def time_task(job):
    """(task, target, [{program, run_secs} | {program, error}]) for one exported task."""
    import tvm
    task_dir, number, repeat, min_repeat_ms = job
    with open(os.path.join(task_dir, "manifest.json")) as f:
        manifest = json.load(f)
    dev, rng, timed = tvm.cpu(0), np.random.default_rng(0), []
    for c in manifest["candidates"]:
        try:
            mod = tvm.runtime.load_module(os.path.join(task_dir, c["file"]))
            args = [tvm.runtime.tensor(_random_argument(shape, dtype, rng), dev) for shape, dtype in c["arguments"]]
            evaluator = mod.time_evaluator(mod.entry_name, dev, number=number, repeat=repeat,
                                           min_repeat_ms=min_repeat_ms)
            dev.sync()
            timed.append({"program": c["program"], "run_secs": [float(s) for s in evaluator(*args).results]})
        except Exception as e:  # noqa: BLE001 — any failure of one candidate is that candidate's, counted by reason
            timed.append({"program": c["program"], "error": timing.first_error_line(e)})
    return manifest["task"], manifest["target"], timed


def time_all(args):
    done = set()
    if os.path.exists(args.output):
        with open(args.output) as f:
            done = {json.loads(line)["task"] for line in f if line.strip()}
    tasks = sorted(d for d in os.listdir(args.dir) if os.path.exists(os.path.join(args.dir, d, "manifest.json")))
    jobs = [(os.path.join(args.dir, t), args.number, args.repeat, args.min_repeat_ms) for t in tasks if t not in done]
    failed, timed = collections.Counter(), 0
    with open(args.output, "a") as out, multiprocessing.Pool(args.jobs) as pool:
        for task, target, candidates in pool.imap_unordered(time_task, jobs):
            out.write(json.dumps({"task": task, "target": target, "candidates": candidates}) + "\n")
            out.flush()
            timed += sum("run_secs" in c for c in candidates)
            failed.update(c["error"] for c in candidates if "error" in c)
    print(json.dumps({"tasks": len(jobs), "skipped_done": len(done), "timed": timed, "failed": dict(failed)}),
          file=sys.stderr)
    return 0


def programs(args):
    from ..files import open_text, write_atomic
    with open_text(args.records) as f:
        records = f.readlines()
    forms = {}
    if args.traces:
        with open_text(args.traces) as f:
            forms = {form["task"]: form for form in map(json.loads, f)}
    with open(args.hardware) as f:
        hardware = json.load(f)
    hardware = hardware.get("hardware", hardware)  # a whole probe answer, or its hardware object
    lines, traced = [], []
    with open_text(args.latencies) as f:
        for n, line in enumerate(f, 1):
            entry, first_line = json.loads(line), len(lines)
            for c in entry["candidates"]:
                if "run_secs" not in c:
                    continue
                if not 1 <= c["program"] <= len(records):
                    raise ValueError(f"{args.latencies}:{n}: program {c['program']} is not a line of {args.records}")
                record = json.loads(records[c["program"] - 1])
                if record["task"]["key"] != entry["task"]:
                    raise ValueError(f"{args.latencies}:{n}: {args.records} line {c['program']} is a record of "
                                     f"{record['task']['key']}, not of {entry['task']}")
                program = dict(record["ast"], task=entry["task"], hardware=hardware,
                               latency_s=timing.latency(c["run_secs"]))
                lines.append(json.dumps(program, separators=(",", ":")) + "\n")
            if args.traces:
                traced.append(_timed_form(forms, entry, first_line, f"{args.latencies}:{n}"))
    if args.traces:  # written first: the programs file is the one a reader waits for
        write_atomic(args.traces_out, "".join(json.dumps(form) + "\n" for form in traced))
    write_atomic(args.output, "".join(lines))
    print(f"{len(lines)} programs into {args.output}", file=sys.stderr)
    return 0


def _timed_form(forms, entry, first_line, where):
    """The task's database form (ucmoh.tvm.trace_replay) for the timing host:
    its timed candidates, each with that host's run_secs and the line of its
    program in the output (counted from `first_line` + 1), on the exported target."""
    if entry["task"] not in forms:
        raise ValueError(f"{where}: task {entry['task']} is not in the traces file")
    form = forms[entry["task"]]
    by_program = {c.get("program"): c for c in form["candidates"]}
    timed = [c for c in entry["candidates"] if "run_secs" in c]
    candidates = [dict(by_program[c["program"]], run_secs=c["run_secs"], program=first_line + i + 1)
                  for i, c in enumerate(timed)]
    return dict(form, target=entry["target"], candidates=candidates)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="command", required=True)
    t = sub.add_parser("time", help="time exported candidates (TVM runtime only)")
    t.add_argument("dir")
    t.add_argument("-o", "--output", required=True, help="latencies, JSON Lines (appended; finished tasks skipped)")
    t.add_argument("--jobs", type=int, default=1)
    t.add_argument("--number", type=int, default=timing.NUMBER)
    t.add_argument("--repeat", type=int, default=timing.REPEAT)
    t.add_argument("--min-repeat-ms", type=int, default=timing.MIN_REPEAT_MS)
    g = sub.add_parser("programs", help="timed candidates as AST programs of the timing host")
    g.add_argument("--records", required=True, help="the records file the exported traces index")
    g.add_argument("--latencies", required=True)
    g.add_argument("--hardware", required=True, help="the timing host's hardware (ucmoh-measure probe's answer)")
    g.add_argument("-o", "--output", required=True)
    g.add_argument("--traces", help="the traces file of --records: also write the timed candidates' forms")
    g.add_argument("--traces-out", help="where (with --traces)")
    args = p.parse_args(argv)
    if args.command == "programs" and bool(args.traces) != bool(args.traces_out):
        p.error("--traces and --traces-out go together")
    try:
        return time_all(args) if args.command == "time" else programs(args)
    except (OSError, ValueError, KeyError) as e:
        print(f"run_exported: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
