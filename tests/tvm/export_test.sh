#!/usr/bin/env bash
# Committed MetaSchedule candidates timed by a host that has only the TVM
# runtime (docs/data.md, "A second CPU"): ucmoh.tvm.export builds 3
# candidates of one committed task; ucmoh.tvm.run_exported times them with a
# TVM that has no compiler library (so it loads runtime-only); a rerun skips
# the timed task; `programs` turns the times into AST programs that carry the
# timing host's hardware, which `registry import ast` keeps in the records,
# and the timed candidates' traces, which replay onto those records.
# Bad input is one line and writes nothing. Skips (77) without TVM only
# outside CI.
#   export_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1 src=$2
source "$src/tests/tvm/require_tvm.sh"  # sets py; skips (77) or, in CI, fails without TVM
work=$(mktemp -d "${TMPDIR:-/tmp}/ucmoh-export.XXXXXX")
trap 'rm -rf "$work"' EXIT
traces=$src/data/metaschedule/emeraldrapids.float32.traces.jsonl.gz
records=$src/data/metaschedule/emeraldrapids.float32.jsonl.gz
export PYTHONPATH=$src/python
target=$("$py" -c 'import json, tvm; print(json.dumps({"kind": "llvm", "mcpu": tvm.target.codegen.llvm_get_system_cpu()}))')

# 1. Export: the first task (every 1000th of 152), 3 candidates.
"$py" -m ucmoh.tvm.export --traces "$traces" --target "$target" --per-task 3 --tasks-every 1000 --jobs 1 -o "$work/x" 2> "$work/export.log" \
  || { cat "$work/export.log"; exit 1; }
task=$(ls "$work/x")
[[ $(ls "$work/x/$task"/*.so | wc -l) -eq 3 && -s $work/x/$task/manifest.json ]] || { echo "FAIL: export wrote $(ls "$work/x/$task")"; exit 1; }

# 2. Timed by a TVM without libtvm_compiler: the package as links, less that library.
site=$work/runtime-site
mkdir -p "$site"
cp -rs "$("$py" -c 'import os, tvm; print(os.path.dirname(tvm.__file__))')" "$site/tvm"
rm "$site/tvm/lib/libtvm_compiler.so"
timer() { PYTHONPATH="$site:$src/python" "$py" -c '
import sys, tvm
if not tvm.base._RUNTIME_ONLY:
    sys.exit("FAIL: the timing TVM loaded its compiler")
from ucmoh.tvm import run_exported
sys.exit(run_exported.main(sys.argv[1:]))' "$@"; }
timer time "$work/x" -o "$work/lat.jsonl" 2> "$work/time.log" || { cat "$work/time.log"; exit 1; }
grep -q '"timed": 3, "failed": {}' "$work/time.log" || { echo "FAIL: $(cat "$work/time.log")"; exit 1; }
[[ $(grep -o '"run_secs"' "$work/lat.jsonl" | wc -l) -eq 3 ]] || { echo "FAIL: latencies: $(cat "$work/lat.jsonl")"; exit 1; }
before=$(sha256sum < "$work/lat.jsonl")
timer time "$work/x" -o "$work/lat.jsonl" 2> "$work/time2.log"
grep -q '"tasks": 0, "skipped_done": 1' "$work/time2.log" || { echo "FAIL: a rerun timed again: $(cat "$work/time2.log")"; exit 1; }
[[ $(sha256sum < "$work/lat.jsonl") == "$before" ]] || { echo "FAIL: a rerun changed the latencies"; exit 1; }

# 3. AST programs of the timing host, and records that carry it.
"$py" -c '
import gzip, json, sys
hw = json.loads(gzip.open(sys.argv[1], "rt").readline())["hardware"]
hw["model"] = "Second CPU (test)"
hw["l2_bytes"] = 1048576.0
json.dump({"hardware": hw}, open(sys.argv[2], "w"))' "$records" "$work/hw.json"
"$py" -m ucmoh.tvm.run_exported programs --records "$records" --latencies "$work/lat.jsonl" --hardware "$work/hw.json" \
  -o "$work/second.ast.jsonl" --traces "$traces" --traces-out "$work/second.traces.jsonl.gz"
"$build/bin/registry" import ast "$work/second.ast.jsonl" -o "$work/second.jsonl"
[[ $(grep -c '"model":"Second CPU (test)"' "$work/second.jsonl") -eq 3 ]] || { echo "FAIL: the records do not carry the timing host"; exit 1; }
grep -q "\"key\":\"$task\"" "$work/second.jsonl" || { echo "FAIL: the records lost their task"; exit 1; }
"$build/bin/registry" features "$work/second.jsonl" > /dev/null
"$py" -c '
import sys
from ucmoh.files import open_text
from ucmoh.tvm.trace_replay import TaskForm
form = TaskForm(open_text(sys.argv[1]).readline())
assert [c["program"] for c, _ in form.schedules()] == [1, 2, 3], form.candidates
assert form.target.attrs["mcpu"] == sys.argv[2], form.target' "$work/second.traces.jsonl.gz" \
  "$("$py" -c 'import json, sys; print(json.loads(sys.argv[1])["mcpu"])' "$target")" \
  || { echo "FAIL: the timed candidates' traces do not replay onto their records"; exit 1; }

# 4. Bad input: one line, non-zero, nothing written.
sed 's/"program": \([0-9]*\)/"program": 9\1/' "$work/lat.jsonl" > "$work/wrong.jsonl"   # lines of other tasks
if "$py" -m ucmoh.tvm.run_exported programs --records "$records" --latencies "$work/wrong.jsonl" --hardware "$work/hw.json" \
     -o "$work/bad.ast.jsonl" 2> "$work/err.txt"; then echo "FAIL: latencies of other records were accepted"; exit 1; fi
[[ $(wc -l < "$work/err.txt") -eq 1 && ! -e $work/bad.ast.jsonl ]] || { echo "FAIL: $(cat "$work/err.txt")"; exit 1; }
grep -q "wrong.jsonl:1: " "$work/err.txt" || { echo "FAIL: the error does not name the line: $(cat "$work/err.txt")"; exit 1; }
if "$py" -m ucmoh.tvm.export --traces "$traces" --target '{"kind": "cuda"}' -o "$work/y" 2> "$work/err2.txt"; then
  echo "FAIL: a CUDA target was exported"; exit 1
fi
[[ $(wc -l < "$work/err2.txt") -eq 1 && ! -e $work/y ]] || { echo "FAIL: $(cat "$work/err2.txt")"; exit 1; }
# 5. A candidate the target cannot build (VNNI int8 code for a CPU without VNNI:
# LLVM aborts inside TVM's builder worker) is counted by reason, not exported,
# and the export finishes (it used to hang on the dead worker).
timeout 300 "$py" -m ucmoh.tvm.export --traces "$src/data/metaschedule/emeraldrapids.int8.traces.jsonl.gz" \
  --target '{"kind": "llvm", "mcpu": "haswell"}' --per-task 2 --tasks-every 1000 --jobs 1 -o "$work/z" 2> "$work/z.log" \
  || { echo "FAIL: the export of unbuildable candidates did not finish"; tail -3 "$work/z.log"; exit 1; }
grep -q '"exported": 0, "failed": {"Subprocess terminated": 2}' "$work/z.log" || { echo "FAIL: $(tail -1 "$work/z.log")"; exit 1; }
[[ -z $(ls "$work"/z/*/*.so 2>/dev/null) ]] || { echo "FAIL: a failed build was exported"; exit 1; }
echo "export $task: 3 candidates built, timed runtime-only, imported with the timing host's hardware: ok"
