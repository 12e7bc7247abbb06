#!/usr/bin/env bash
# `registry collect metaschedule` end to end on this host, with the TVM that
# tools/setup-tvm puts in .venv: 2 network tasks x 8 candidates sampled from
# MetaSchedule's design space, built, measured, converted to records,
# featurized, and one epoch of training on them; a rerun measures nothing; a
# collector killed with SIGKILL and restarted writes each candidate exactly
# once; an RPC fleet (a tracker and two servers on loopback) measures; bad
# input is one line and writes nothing. Outside CI a missing TVM skips (77);
# with CI set it fails: CI is meant to run this.
#   collect_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1 src=$2
source "$src/tests/tvm/require_tvm.sh"  # sets py; skips (77) or, in CI, fails without TVM
work=$(mktemp -d "${TMPDIR:-/tmp}/ucmoh-collect.XXXXXX")
collector=""
trap '[[ -n $collector ]] && kill -9 $collector 2>/dev/null; rm -rf "$work"' EXIT
registry=$build/bin/registry
tasks=mobilenet_v2.dense.m1n1000k1280.bias,bert_base.dense.m1n768k768.bias_tanh
collect() { "$registry" collect metaschedule --tasks "$tasks" --per-task 8 --random 8 "$@"; }

# 1. Sample -> build -> measure -> records -> featurize -> train.
collect --work "$work/w" -o "$work/ms.jsonl" 2> "$work/log.txt" || { tail -n 20 "$work/log.txt"; exit 1; }
records=$(wc -l < "$work/ms.jsonl")
summed=$("$py" -c "
import json, sys
print(sum(json.load(open(f'{sys.argv[1]}/{t}/summary.json'))['measured'] for t in sys.argv[2].split(',')))" "$work/w" "$tasks")
[[ $records -ge 12 && $records -eq $summed ]] || { echo "FAIL: $records records of $summed measured candidates (refused ones? see log)"; tail -n 3 "$work/log.txt"; exit 1; }
for t in ${tasks//,/ }; do
  grep -q "$t" "$work/ms.jsonl" || { echo "FAIL: no record of task $t"; exit 1; }
done
grep -q '"kind":"measured"' "$work/ms.jsonl" || { echo "FAIL: collected records are not marked measured"; exit 1; }
"$registry" features "$work/ms.jsonl" | tee "$work/features.txt"
grep -Eq "^x86\.avx(2|512) +$records +0 " "$work/features.txt" || { echo "FAIL: not every collected record featurizes"; exit 1; }
"$registry" train --data "$work/ms.jsonl" --split by_task --epochs 1 -o "$work/model.pt" | tee "$work/train.txt"
[[ -s $work/model.pt ]] || { echo "FAIL: training on the collected records wrote no model"; exit 1; }

# 2. A rerun resumes: nothing measured again, the same records.
before=$(sha256sum < "$work/ms.jsonl")
collect --work "$work/w" -o "$work/ms.jsonl" 2> "$work/log2.txt" || { tail -n 5 "$work/log2.txt"; exit 1; }
! grep -q "Sending .* sample(s) to builder" "$work/log2.txt" || { echo "FAIL: a rerun measured again"; exit 1; }
[[ $(sha256sum < "$work/ms.jsonl") == "$before" ]] || { echo "FAIL: a rerun changed the records"; exit 1; }

# 2a. Shards: --shard K/N takes positions K, K+N, ... of the task order, so two
# collectors side by side split the tasks; together they hold every record once.
for k in 0 1; do
  collect --work "$work/w" --shard "$k/2" --finished-only -o "$work/shard$k.jsonl" 2> "$work/log-shard$k.txt" || {
    tail -n 5 "$work/log-shard$k.txt"; exit 1; }
done
"$py" - "$work/ms.jsonl" "$work/shard0.jsonl" "$work/shard1.jsonl" <<'PY'
import json, sys
def tasks(path): return {json.loads(line)["task"]["key"] for line in open(path)}
whole, first, second = (tasks(p) for p in sys.argv[1:])
assert len(first) == len(second) == 1 and first | second == whole, (first, second, whole)
counts = [sum(1 for _ in open(p)) for p in sys.argv[1:]]
assert counts[1] + counts[2] == counts[0], counts
print(f"shards 0/2 and 1/2: {counts[1]} + {counts[2]} of {counts[0]} records, one task each")
PY

# 2b. A larger --per-task extends the finished tasks: more records, each once,
# the first round's among them; then a rerun measures nothing.
"$registry" collect metaschedule --tasks "$tasks" --per-task 12 --random 8 --work "$work/w" -o "$work/more.jsonl" 2> "$work/log5.txt" || { tail -n 5 "$work/log5.txt"; exit 1; }
grep -q "(round 2)" "$work/log5.txt" || { echo "FAIL: --per-task 12 did not extend the finished tasks"; exit 1; }
[[ $(wc -l < "$work/more.jsonl") -gt $records ]] || { echo "FAIL: the extension added no record"; exit 1; }
[[ $(sort "$work/more.jsonl" | uniq -d | wc -l) -eq 0 ]] || { echo "FAIL: the extension wrote a record twice"; exit 1; }
same() { sed 's/"program":[0-9]*//' "$@" | sort; }  # a record's line number in the output aside
[[ $(comm -12 <(same "$work/ms.jsonl") <(same "$work/more.jsonl") | wc -l) -eq $records ]] || { echo "FAIL: the extension lost first-round records"; exit 1; }
"$registry" collect metaschedule --tasks "$tasks" --per-task 12 --random 8 --work "$work/w" -o "$work/more2.jsonl" 2> "$work/log6.txt"
! grep -q "Sending .* sample(s) to builder" "$work/log6.txt" || { echo "FAIL: a rerun of the extension measured again"; exit 1; }

# 2c. int8 (VNNI, where this CPU has it): no candidate TVM cannot build reaches
# the builder (ucmoh.tvm.vnni.RejectVectorizedTensorize; without it about half
# of this task's candidates failed with "Cannot broadcast lanes=16").
if grep -q avx512_vnni /proc/cpuinfo; then
  "$registry" collect metaschedule --dtype int8 --tasks bert_base.dense.m128n768k768.bias.int8 --per-task 16 --random 16 \
    --work "$work/i8" -o "$work/i8.jsonl" 2> "$work/log7.txt" || { tail -n 5 "$work/log7.txt"; exit 1; }
  ! grep -q "Cannot broadcast" "$work/i8"/*/summary.json || { echo "FAIL: int8 candidates vectorized around VNNI reached the builder"; exit 1; }
  [[ $(wc -l < "$work/i8.jsonl") -ge 14 ]] || { echo "FAIL: $(wc -l < "$work/i8.jsonl") of 16 int8 candidates measured"; exit 1; }
fi

# 3. SIGKILL after the first task finished, then a restart: every candidate once.
"$registry" collect metaschedule --tasks "$tasks" --per-task 8 --random 8 --work "$work/k" -o "$work/killed.jsonl" \
  2> "$work/log3.txt" &
collector=$!  # registry itself: its collector child dies with it
first=${tasks%%,*}
for _ in $(seq 600); do [[ -e $work/k/$first/summary.json ]] && break; sleep 0.2; done
kill -9 "$collector"; wait "$collector" 2>/dev/null || true; collector=""
[[ ! -e $work/killed.jsonl ]] || { echo "FAIL: a killed collector left an output file"; exit 1; }
sleep 1
! pgrep -f "ucmoh.tvm.collect.*$work/k" > /dev/null || { echo "FAIL: the collector outlived its killed registry"; exit 1; }
collect --work "$work/k" -o "$work/killed.jsonl" 2> "$work/log4.txt" || { tail -n 5 "$work/log4.txt"; exit 1; }
summed=$("$py" -c "
import json, sys
print(sum(json.load(open(f'{sys.argv[1]}/{t}/summary.json'))['measured'] for t in sys.argv[2].split(',')))" "$work/k" "$tasks")
[[ $(wc -l < "$work/killed.jsonl") -eq $summed ]] || { echo "FAIL: after SIGKILL and restart: $(wc -l < "$work/killed.jsonl") records, $summed measured"; exit 1; }
[[ $(sort "$work/killed.jsonl" | uniq -d | wc -l) -eq 0 ]] || { echo "FAIL: a record written twice after SIGKILL"; exit 1; }

# 4. The measuring fleet: TVM's RPC tracker and two servers on loopback.
PYTHONPATH=$src/python "$py" - "$registry" "$work" <<'PY'
import subprocess, sys
from tvm.rpc.server import Server
from tvm.rpc.tracker import Tracker
registry, work = sys.argv[1:]
tracker = Tracker(host="127.0.0.1", port=9190, port_end=9290, silent=True)
servers = [Server(host="127.0.0.1", port=9300, port_end=9400, tracker_addr=(tracker.host, tracker.port), key="ucmoh",
                  silent=True) for _ in range(2)]
rpc = f"{tracker.host}:{tracker.port}:ucmoh"
try:
    out = subprocess.run([registry, "collect", "metaschedule", "--tasks", "bert_base.dense.m1n768k768.bias_tanh",
                          "--per-task", "4", "--random", "4", "--rpc", rpc, "--work", f"{work}/rpc",
                          "-o", f"{work}/rpc.jsonl"], capture_output=True, text=True, timeout=600)
finally:  # they run in worker processes that would outlive this one (and hold ctest's pipe)
    for s in servers:
        s.terminate()
    tracker.terminate()
assert out.returncode == 0, out.stderr[-2000:]
lines = open(f"{work}/rpc.jsonl").read().splitlines()
assert len(lines) >= 3, f"{len(lines)} records measured through the tracker"
print(f"rpc fleet (tracker {tracker.port}, 2 servers): {len(lines)} records")
PY

# 5. Bad input: one line, a non-zero exit, nothing written.
refuse() {
  local what=$1; shift
  if "$@" > "$work/out.txt" 2> "$work/err.txt"; then echo "FAIL: $what succeeded"; exit 1; fi
  [[ $(grep -c . "$work/err.txt") -eq 1 ]] || { echo "FAIL: $what: not one line:"; cat "$work/err.txt"; exit 1; }
  grep -q "$2" "$work/err.txt" 2>/dev/null || true
  [[ ! -e $work/bad.jsonl ]] || { echo "FAIL: $what wrote $work/bad.jsonl"; exit 1; }
  echo "refused ($what): $(cat "$work/err.txt")"
}
refuse "an unknown network" "$registry" collect metaschedule --networks alexnet -o "$work/bad.jsonl"
grep -q "unknown network 'alexnet'" "$work/err.txt"
refuse "an unknown task" "$registry" collect metaschedule --tasks resnet50.nothing -o "$work/bad.jsonl"
refuse "a target that is not this host" "$registry" collect metaschedule --networks bert_base \
  --target '{"kind": "llvm", "mtriple": "aarch64-linux-gnu"}'  -o "$work/bad.jsonl"
grep -q "not this host" "$work/err.txt"
refuse "an unknown source" "$registry" collect autotvm -o "$work/bad.jsonl"
refuse "a shard past its count" "$registry" collect metaschedule --shard 2/2 -o "$work/bad.jsonl"
grep -q "is not K/N" "$work/err.txt"
# A Python without TVM (the system one): one line that says how to get TVM.
for python in /usr/bin/python3 /nonexistent/python3; do
  refuse "collect with $python" "$registry" collect metaschedule --networks bert_base --python "$python" -o "$work/bad.jsonl"
  grep -q "cannot import TVM: run tools/setup-tvm" "$work/err.txt"
  refuse "import with $python" "$registry" import metaschedule "$work/w/$first" --python "$python" -o "$work/bad.jsonl"
  grep -q "cannot import TVM: run tools/setup-tvm" "$work/err.txt"
done
echo "collect metaschedule: $records records of 2 tasks, resumed, killed and restarted, rpc fleet, refusals: ok"
