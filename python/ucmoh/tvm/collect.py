"""Samples and measures MetaSchedule's design space of network tasks.

    python -m ucmoh.tvm.collect --networks resnet50,bert_base --dtype float32 \\
        --per-task 64 --work WORK -o OUT.ast.jsonl [--rpc HOST:PORT:KEY]

`registry collect metaschedule` runs this and turns its ASTs into records.

Per task (ucmoh.tvm.networks), MetaSchedule tunes the task's default design
space for the target with its XGBModel: the first `--random` trials are its
warm-up, candidates of an evolutionary search under a random model (the
TenSet / TVM dataset_sample_candidates way of sampling a space), the rest a
short real tuning run, so that the fast end of the space is in the data too.
MetaSchedule itself deduplicates candidates by structural hash. Candidates are
built by TVM's LocalBuilder (ucmoh.tvm.LocalBuilder) and timed by its
LocalRunner, or by its RPCRunner through an RPC tracker (a fleet of hosts).

Timing protocol (docs/data.md): `number` runs per repeat, raised until a
repeat lasts `min_repeat_ms`; `repeat` repeats; the latency is their mean; no
cache flush (as MetaSchedule tunes by default); one thread (TVM_NUM_THREADS=1,
target num-cores 1), so that a 2-core host measures while it builds.

Every task keeps its MetaSchedule JSON database (workload + trace of every
candidate: the data can be re-featurized without measuring again) and, when
it is complete, `summary.json` (written last, by rename: a task is done
exactly once, a killed collector redoes only the unfinished task; it counts
the measured candidates and the failed builds / runs by reason, and the
seconds spent). A rerun with a larger --per-task extends finished tasks: an
`extend-N` round copies the task's database, tunes on from it (its search
starts from the best measured) up to N trials, and is finished, and used,
only once its own summary.json is written; a candidate measured twice counts
once. The output is converted from the databases every time (so a
better converter re-featurizes old data without measuring again), with the
converter's refusals counted by reason. Failed candidates are counted, never
written as latencies.
"""
import argparse
import collections
import json
import os
import shutil
import sys
import time

from ..files import write_atomic
from . import timing


def _fail(message):
    print(f"error: {message}", file=sys.stderr)
    return 2


try:
    import tvm
    import tvm.s_tir.meta_schedule as ms
    from tvm.ir.utils import derived_object
    from tvm.s_tir.meta_schedule.measure_callback import MeasureCallback, PyMeasureCallback

    from .database import measured_records, runner_latency
except ImportError as _e:  # the interpreter has no TVM: one line, how to get it
    _TVM_ERROR = (f"{sys.executable} cannot import TVM ({_e}); run tools/setup-tvm, which installs it into "
                  ".venv, or name a Python with TVM (--python / UCMOH_PYTHON)")
else:
    _TVM_ERROR = None


def host_isa():
    """The host's x86 ISA extensions that decide an intrinsic (from /proc/cpuinfo)."""
    try:
        with open("/proc/cpuinfo") as f:
            flags = next((line.split(":", 1)[1].split() for line in f if line.startswith("flags")), [])
    except OSError:
        flags = []
    return {name for name in ("avx2", "fma", "avx512f", "avx512_vnni", "avx512_bf16") if name in flags}


def host_target(dtype, cores=1):
    """The LLVM target of this host; int8 needs AVX-512 VNNI (x86.vnni)."""
    isa = host_isa()
    if dtype == "int8" and "avx512_vnni" not in isa:
        raise ValueError("int8 tasks need x86.vnni (AVX-512 VNNI), which this host's CPU lacks "
                         f"(it has: {', '.join(sorted(isa)) or 'no AVX2'}); measure them on a host with VNNI (--rpc)")
    if "avx2" not in isa:
        raise ValueError("this host has no AVX2: the x86 plugin's fp32 intrinsics (x86.avx2 / x86.avx512) need it")
    cpu = tvm.target.codegen.llvm_get_system_cpu()
    return tvm.target.Target({"kind": "llvm", "mcpu": cpu, "num-cores": cores})


def check_target_is_host(target):
    """A named target must be one this host runs (unless an RPC fleet measures)."""
    attrs = " ".join(str(target.attrs.get(k, "")) for k in ("mcpu", "mattr"))
    isa = host_isa()
    wants_512 = "avx512" in attrs or any(c in attrs for c in ("skylake-avx512", "cascadelake", "icelake",
                                                               "sapphirerapids", "znver4", "znver5"))
    if target.kind.name != "llvm" or ("aarch64" in str(target.attrs.get("mtriple", ""))):
        raise ValueError(f"target '{target}' is not this host (an x86 CPU); measure it through --rpc")
    if wants_512 and "avx512f" not in isa:
        raise ValueError(f"target '{target}' uses AVX-512, which this host lacks; measure it through --rpc")


@derived_object
class FailureLog(PyMeasureCallback):
    """Why each failed candidate failed (the first line of its builder / runner error)."""

    def __init__(self):
        super().__init__()
        self.reasons = collections.Counter()

    def apply(self, task_scheduler, task_id, measure_candidates, builder_results, runner_results):
        for built, ran in zip(builder_results, runner_results):
            if built.error_msg is not None:
                self.reasons["build: " + timing.first_error_line(built.error_msg)] += 1
            elif ran.error_msg is not None:
                self.reasons["run: " + timing.first_error_line(ran.error_msg)] += 1


def _runner(args):
    config = ms.runner.EvaluatorConfig(number=args.number, repeat=args.repeat, min_repeat_ms=args.min_repeat_ms,
                                       enable_cpu_cache_flush=False)
    if args.rpc:
        host, port, key = args.rpc.rsplit(":", 2)
        rpc = ms.runner.RPCConfig(tracker_host=host, tracker_port=int(port), tracker_key=key, session_timeout_sec=120)
        return ms.runner.RPCRunner(rpc_config=rpc, evaluator_config=config, max_workers=args.rpc_workers)
    return ms.runner.LocalRunner(timeout_sec=args.run_timeout, evaluator_config=config)


def _plain(value):
    """TVM FFI containers and strings as plain Python (for json)."""
    if isinstance(value, (list, tuple)) or type(value).__name__ == "Array":
        return [_plain(v) for v in value]
    if isinstance(value, str):
        return str(value)
    if isinstance(value, (bool, int, float)) or value is None:
        return value
    if hasattr(value, "value"):  # IntImm, FloatImm
        return value.value
    return str(value)


def convert(task, task_dir, target):
    """The task's measured candidates as ASTs, the converter's refusals by
    reason, and the candidates in database form (workload, and per candidate
    its trace, run_secs and the index of its AST or the reason it has none)."""
    from .tir_exprs import UnsupportedTIR
    from .tir_to_ast import tir_to_ast
    programs, refused, candidates, workload = [], collections.Counter(), [], None
    for record, latency in measured_records(task_dir):
        workload = workload or record.workload
        sch = tvm.s_tir.Schedule(record.workload.mod)
        record.trace.apply_to_schedule(sch, remove_postproc=False)
        entry = {"trace": _plain(record.trace.as_json(remove_postproc=False)),
                 "run_secs": [float(x) for x in record.run_secs]}
        try:
            ast = tir_to_ast(sch.mod["main"], target, task=task.name)
        except UnsupportedTIR as e:
            refused[str(e)] += 1
            candidates.append(dict(entry, refused=str(e)))
            continue
        ast["latency_s"] = latency
        candidates.append(dict(entry, program=len(programs)))
        programs.append(ast)
    form = {"task": task.name, "weights": task.weights, "flops": task.flops(), "target": json.loads(str(target)),
            "workload": json.loads(tvm.ir.save_json(workload.mod)) if workload else None, "candidates": candidates}
    return programs, refused, form


def finished_dir(task_dir):
    """Where a finished task's records are: its largest finished extension
    (extend-N: the earlier rounds' database copied, then tuned on to N trials),
    else the task directory itself; None while the task is unfinished."""
    if not os.path.exists(os.path.join(task_dir, "summary.json")):
        return None
    extensions = [(int(name.split("-", 1)[1]), name) for name in os.listdir(task_dir)
                  if name.startswith("extend-") and os.path.exists(os.path.join(task_dir, name, "summary.json"))]
    return os.path.join(task_dir, max(extensions)[1]) if extensions else task_dir


def collect_task(task, args, target, seed):
    """Tunes one task to args.per_task trials: a first round into its
    directory, or, for a task finished with fewer trials, an extension round
    that starts from its database (so the search starts from what it has
    measured). Returns the round's summary, or None when nothing was left to do."""
    task_dir = os.path.join(args.work, task.name)
    done = finished_dir(task_dir)
    if done is None:
        shutil.rmtree(task_dir, ignore_errors=True)  # an unfinished task from a killed run starts again
        return _tune_round(task, args, target, seed, task_dir, args.per_task, None)
    with open(os.path.join(done, "summary.json")) as f:
        earlier = json.load(f)
    if _trials(earlier) >= args.per_task:
        return None
    extension = os.path.join(task_dir, f"extend-{args.per_task}")
    shutil.rmtree(extension, ignore_errors=True)
    return _tune_round(task, args, target, seed + 7919, extension, args.per_task - _trials(earlier), earlier,
                       copy_from=done)


def _space(mod, target, dtype):
    """MetaSchedule's default design space; for int8 (VNNI) without the
    candidates TVM cannot build (ucmoh.tvm.vnni.space)."""
    if dtype != "int8":
        return "post-order-apply"
    from .vnni import space
    return space(mod, target)


def _trials(summary):
    """The trials a finished task was tuned for (the earliest collector's
    summaries did not say: every trial was measured or failed)."""
    return summary.get("per_task", summary["measured"] + sum(summary["failed"].values()))


def _tune_round(task, args, target, seed, round_dir, trials, earlier, copy_from=None):
    """One tuning round into round_dir; writes summary.json last (the mark of
    a finished round), its counts cumulative over the task's rounds."""
    os.makedirs(round_dir)
    if copy_from:
        for name in ("database_workload.json", "database_tuning_record.json"):
            shutil.copyfile(os.path.join(copy_from, name), os.path.join(round_dir, name))
    failures = FailureLog()
    start = time.perf_counter()
    mod = tvm.IRModule({"main": task.prim_func()})
    ms.tune_tir(mod, target, round_dir, max_trials_global=trials, space=_space(mod, target, args.dtype),
                num_trials_per_iter=args.batch, builder=_builder(args), runner=_runner(args),
                cost_model=ms.cost_model.XGBModel(num_warmup_samples=min(args.random, trials), num_tuning_cores=1),
                strategy=ms.search_strategy.EvolutionarySearch(population_size=args.population),
                measure_callbacks=MeasureCallback.create("default") + [failures],
                num_tuning_cores=1, seed=seed)
    failed = collections.Counter(earlier["failed"] if earlier else {})
    failed.update(failures.reasons)
    summary = {"task": task.name, "weights": task.weights, "flops": task.flops(),
               "measured": sum(1 for _ in measured_records(round_dir)), "failed": dict(failed),
               "tune_s": time.perf_counter() - start + (earlier["tune_s"] if earlier else 0.0),
               "per_task": (_trials(earlier) if earlier else 0) + trials, "random": args.random,
               "rounds": (earlier.get("rounds", 1) if earlier else 0) + 1,
               "target": str(target), "rpc": bool(args.rpc), "tvm": tvm.__version__,
               "protocol": {"number": args.number, "repeat": args.repeat, "min_repeat_ms": args.min_repeat_ms,
                            "cache_flush": False, "threads": 1}}
    write_atomic(os.path.join(round_dir, "summary.json"), json.dumps(summary, indent=1) + "\n")
    return summary


def remeasure_task(task, args, target):
    """Builds and runs every measured candidate of a finished task again, in a
    second pass; writes remeasure.json (first and second latency of each): the
    data's noise ceiling (tools/ms_noise.py)."""
    task_dir = os.path.join(args.work, task.name)
    path = os.path.join(task_dir, "remeasure.json")
    if os.path.exists(path):
        return json.load(open(path))
    chosen = list(measured_records(finished_dir(task_dir)))
    inputs = [r.as_measure_candidate() for r, _ in chosen]
    built = _builder(args).build([ms.builder.BuilderInput(c.sch.mod, target) for c in inputs])
    ran = [None] * len(built)
    ok = [i for i, b in enumerate(built) if b.error_msg is None]
    futures = _runner(args).run([ms.runner.RunnerInput(built[i].artifact_path, "cpu", inputs[i].args_info) for i in ok])
    for i, future in zip(ok, futures):
        result = future.result()
        ran[i] = runner_latency(result)
    for b in built:
        if b.artifact_path:
            ms.utils.remove_build_dir(b.artifact_path)
    pairs = [{"first_s": first, "again_s": again} for (_, first), again in zip(chosen, ran) if again is not None]
    write_atomic(path, json.dumps({"task": task.name, "pairs": pairs, "failed": len(chosen) - len(pairs)}) + "\n")
    return json.load(open(path))


def _builder(args):
    from .builder import LocalBuilder
    return LocalBuilder(max_workers=args.build_workers, timeout_sec=args.build_timeout)


def _interleaved(chosen):
    """Tasks in turn from each network (the first that has them), so that the
    first N tasks of a long collection already cover every network."""
    queues = collections.OrderedDict()
    for task in chosen:
        queues.setdefault(next(iter(task.weights)), []).append(task)
    order = []
    while any(queues.values()):
        for queue in queues.values():
            if queue:
                order.append(queue.pop(0))
    return order


def _shard(spec, count):
    """The positions of the tasks `--shard K/N` takes: K, K+N, ... (all without it)."""
    if not spec:
        return list(range(count))
    k, _, n = spec.partition("/")
    if not (k.isdigit() and n.isdigit() and int(k) < int(n)):
        raise ValueError(f"--shard '{spec}' is not K/N with 0 <= K < N")
    return list(range(int(k), count, int(n)))


def _parse(argv):
    p = argparse.ArgumentParser(prog="python -m ucmoh.tvm.collect", description=__doc__.splitlines()[0])
    p.add_argument("--networks", default="", help="comma-separated (default: all of ucmoh.tvm.networks)")
    p.add_argument("--dtype", default="float32", choices=["float32", "int8"])
    p.add_argument("--tasks", default="", help="only these task names (comma-separated)")
    p.add_argument("--max-tasks", type=int, default=0, help="the first N tasks only (0: all)")
    p.add_argument("--shard", default="", help="K/N: only positions K, K+N, ... of the task order, with the seeds "
                   "and second passes one collector would give them (N collectors side by side on one work directory)")
    p.add_argument("--per-task", type=int, default=64, help="measured candidates per task")
    p.add_argument("--random", type=int, default=32, help="of them, sampled under a random model")
    p.add_argument("--batch", type=int, default=16, help="candidates per search iteration")
    p.add_argument("--population", type=int, default=128, help="evolutionary search population")
    p.add_argument("--work", required=True, help="per-task databases; a rerun resumes here")
    p.add_argument("-o", "--output", required=True, help="AST JSON Lines of every finished task")
    p.add_argument("--traces", default="", help="also write every task's database form here (JSON Lines, "
                   ".gz compresses): its workload, and each candidate's trace, run_secs and line in the output")
    p.add_argument("--target", default="", help='a TVM target, as JSON ({"kind": "llvm", "mcpu": ...}) or a tag '
                   "(default: this host, one core)")
    p.add_argument("--rpc", default="", help="TRACKER_HOST:PORT:KEY: measure on the tracker's servers")
    p.add_argument("--rpc-workers", type=int, default=1)
    p.add_argument("--number", type=int, default=timing.NUMBER)
    p.add_argument("--repeat", type=int, default=timing.REPEAT)
    p.add_argument("--min-repeat-ms", type=int, default=timing.MIN_REPEAT_MS)
    p.add_argument("--build-workers", type=int, default=2)
    p.add_argument("--build-timeout", type=int, default=60)
    p.add_argument("--run-timeout", type=int, default=30)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--finished-only", action="store_true",
                   help="measure nothing: write the output of the tasks the work directory has finished")
    p.add_argument("--remeasure-every", type=int, default=0,
                   help="second pass: measure every candidate of every Nth task again (0: none)")
    return p.parse_args(argv)


def main(argv=None):
    args = _parse(argv)
    if _TVM_ERROR:
        return _fail(_TVM_ERROR)
    from .networks import tasks
    try:
        chosen = tasks([n for n in args.networks.split(",") if n] or None, args.dtype)
        if args.tasks:
            wanted = args.tasks.split(",")
            missing = [t for t in wanted if t not in {c.name for c in chosen}]
            if missing:
                raise KeyError(f"unknown task '{missing[0]}' in networks {args.networks or 'all'} ({args.dtype})")
            chosen = [t for t in chosen if t.name in wanted]
        chosen = _interleaved(chosen)
        if args.max_tasks:
            chosen = chosen[:args.max_tasks]
        positions = _shard(args.shard, len(chosen))
        if args.target:
            target = tvm.target.Target(json.loads(args.target) if args.target.startswith("{") else args.target)
            if not args.rpc:
                check_target_is_host(target)
        else:
            target = host_target(args.dtype)
    except (KeyError, ValueError) as e:
        return _fail(str(e).strip("'\"").splitlines()[0])
    if args.random > args.per_task:
        return _fail(f"--random {args.random} is more than --per-task {args.per_task}")
    if args.finished_only:  # assemble what a (running) collection has finished; measure nothing
        positions = [i for i in positions if finished_dir(os.path.join(args.work, chosen[i].name))]
    chosen = [chosen[i] for i in positions]
    if args.dtype == "int8":
        from .vnni import register
        register()
    os.environ.setdefault("TVM_NUM_THREADS", "1")
    os.makedirs(args.work, exist_ok=True)
    totals = collections.Counter()
    for i, task in zip(positions, chosen):  # i: the task's place in the whole order (its seed, its second pass)
        s = None if args.finished_only else collect_task(task, args, target, args.seed + i)
        if s:
            print(f"{task.name}: {s['measured']} measured, {sum(s['failed'].values())} failed, {s['tune_s']:.0f} s"
                  + (f" (round {s['rounds']})" if s["rounds"] > 1 else ""), file=sys.stderr, flush=True)
        if args.remeasure_every and i % args.remeasure_every == 0:
            totals["remeasured"] += len(remeasure_task(task, args, target)["pairs"])
    # Every finished task's database is converted again here, so a better
    # converter re-featurizes old data without measuring it again; the output
    # is assembled from finished tasks only, and replaced whole.
    lines, forms = [], []
    for task in chosen:
        done = finished_dir(os.path.join(args.work, task.name))
        with open(os.path.join(done, "summary.json")) as f:
            summary = json.load(f)
        programs, refused, form = convert(task, done, target)
        for c in form["candidates"]:  # the line of its record in the output
            if "program" in c:
                c["program"] += len(lines) + 1
        lines += [json.dumps(p, separators=(",", ":")) + "\n" for p in programs]
        forms.append(json.dumps(form, separators=(",", ":")) + "\n")
        totals["programs"] += len(programs)
        for kind, reasons in (("failed", summary["failed"]), ("refused", refused)):
            for reason, n in reasons.items():
                totals[f"{kind} ({reason})"] += n
    write_atomic(args.output, "".join(lines))
    if args.traces:
        write_atomic(args.traces, "".join(forms))
    details = "; ".join(f"{n} {what}" for what, n in sorted(totals.items()) if what not in ("programs", "remeasured"))
    print(f"collected {totals['programs']} programs of {len(chosen)} tasks into {args.output}"
          + (f" ({totals['remeasured']} measured twice)" if args.remeasure_every else "")
          + (f"; {details}" if details else ""), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
