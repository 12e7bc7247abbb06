#!/usr/bin/env bash
# ucmoh.tvm against the TVM that tools/setup-tvm installs into .venv: the TIR
# -> AST converter for every intrinsic kind, and a MetaSchedule tuning run that ranks with our model.
# Skips (77) only when .venv has no TVM, and only outside CI; says so.
#   tvm_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1 src=$2
source "$src/tests/tvm/require_tvm.sh"  # sets py; skips (77) or, in CI, fails without TVM
work=$(mktemp -d "${TMPDIR:-/tmp}/ucmoh-tvm.XXXXXX")
trap 'rm -rf "$work"' EXIT
registry=$build/bin/registry
(zcat "$src/data/x86/x86.avx2.jsonl.gz" || true) | head -n 1500 > "$work/records.jsonl"  # zcat: SIGPIPE
"$registry" --db "$work/registry.db" init > /dev/null
"$registry" --db "$work/registry.db" records add "$work/records.jsonl" > /dev/null
"$registry" --db "$work/registry.db" add-intrinsic x86.avx2 --epochs 2 > /dev/null
UCMOH_TEST_REGISTRY=$work/registry.db UCMOH_TEST_PLUGINS=$src/plugins.json UCMOH_TEST_WORK=$work \
UCMOH_LIBRARY=$build/lib/libucmoh.so PYTHONPATH=$src/python:$src/tests/tvm \
  "$py" -m unittest -v test_tir_to_ast test_tvm_cost_model test_database
# The tuning run's database back into the registry: every measured candidate
# becomes a record (an AST record of x86.avx2 on this host), and the registry
# learns from them.
"$registry" import metaschedule "$work/tune" --python "$py" -o "$work/tuned.jsonl"
measured=$("$py" -c "
import sys, tvm.s_tir.meta_schedule as ms
db = ms.database.JSONDatabase(work_dir=sys.argv[1])
print(sum(1 for r in db.get_all_tuning_records() if r.run_secs and max(float(s) for s in r.run_secs) < 1e9))" "$work/tune")
imported=$(wc -l < "$work/tuned.jsonl")
[[ $imported -ge 4 && $imported -eq $measured ]] || { echo "FAIL: imported $imported records of $measured measured"; exit 1; }
"$registry" features "$work/tuned.jsonl" | grep -E '^x86\.avx2 +[0-9]+ +0 ' || { echo "FAIL: imported records do not featurize"; exit 1; }
"$registry" --db "$work/registry.db" records add "$work/tuned.jsonl" > /dev/null
"$registry" --db "$work/registry.db" add-intrinsic x86.avx2 --relearn --epochs 1 --rehearsal 4000 | tee "$work/add.txt"
grep -q "version 3" "$work/add.txt" || { echo "FAIL: add-intrinsic from the imported records made no version 3"; exit 1; }
# A pulled model whose forgetting state holds AST records updates like any other.
"$registry" --db "$work/registry.db" pull ucmoh@3 -o "$work/pulled" > /dev/null
grep -q '"ast":' "$work/pulled/forgetting/rehearsal.jsonl" || { echo "FAIL: no AST record in the rehearsal sample"; exit 1; }
UCMOH_LIBRARY=$build/lib/libucmoh.so PYTHONPATH=$src/python "$py" - "$work/pulled" "$work/tuned.jsonl" "$src/plugins.json" <<'PY'
import sys, ucmoh
pulled, records, plugins = sys.argv[1:]
with ucmoh.open(pulled, plugins=plugins) as model:
    text = open(records).read()
    before = model.score(text, format="records")
    model.update(text, epochs=1, format="records")
    assert model.info["updates"] == 1, model.info
    assert (model.score(text, format="records") != before).any(), "the update changed nothing"
print("pulled model with AST rehearsal records: updated")
PY
# Not a database: one line naming it, a non-zero exit, no output file.
if "$registry" import metaschedule "$work" --python "$py" -o "$work/none.jsonl" 2> "$work/err.txt"; then
  echo "FAIL: importing a directory that is not a MetaSchedule database succeeded"; exit 1
fi
grep -q "not a MetaSchedule JSON database" "$work/err.txt" && [[ ! -e $work/none.jsonl ]] || { cat "$work/err.txt"; exit 1; }
echo "metaschedule import: $imported records, add-intrinsic from them: ok"
# The same import from an installed registry: `cmake --install` puts the
# package under PREFIX/lib/python3.X/dist-packages, and the installed binary
# hands that folder to the Python it runs (not the source tree's python/).
cmake --install "$build" --prefix "$work/prefix" > /dev/null
"$work/prefix/bin/registry" --plugins "$work/prefix/share/ucmoh/plugins.json" import metaschedule "$work/tune" \
  --python "$py" -o "$work/installed.jsonl"
cmp <(sort "$work/tuned.jsonl") <(sort "$work/installed.jsonl") ||
  { echo "FAIL: the installed registry imported other records than the build tree's"; exit 1; }
echo "metaschedule import from an installed registry: ok"
# first_task RECORDS: the first task's form of RECORDS' traces file in
# $work/one.traces.jsonl, and that task's records in $work/one.jsonl.
first_task() {
  local programs
  (zcat "${1%.jsonl.gz}.traces.jsonl.gz" || true) | head -n 1 > "$work/one.traces.jsonl"
  programs=$("$py" -c "import json,sys; print(sum('program' in c for c in json.load(open(sys.argv[1]))['candidates']))" \
    "$work/one.traces.jsonl")
  (zcat "$1" || true) | head -n "$programs" > "$work/one.jsonl"
}
# The committed MetaSchedule records are what today's converter makes of their
# traces (docs/data.md, "Re-featurized"): the first task of each file, converted
# again, gives the same records, line for line (a converter change that alters
# the ASTs must re-featurize the committed data with ucmoh.tvm.reconvert). The
# second hosts' files too, each converted for the target its traces name (a
# second CPU's own: docs/data.md, "A second CPU").
for records in "$src"/data/metaschedule/*.float32.jsonl.gz "$src"/data/metaschedule/*.int8.jsonl.gz \
               "$src"/data/metaschedule/second-host/*.float32.jsonl.gz "$src"/data/metaschedule/second-host/*.int8.jsonl.gz; do
  first_task "$records"
  PYTHONPATH=$src/python "$py" -m ucmoh.tvm.reconvert --traces "$work/one.traces.jsonl" --records "$work/one.jsonl" \
    -o "$work/again.jsonl" --jobs 1
  "$py" - "$work/one.jsonl" "$work/again.jsonl" <<'PY'
import json, sys
committed, again = ([json.loads(line) for line in open(p)] for p in sys.argv[1:])
assert len(committed) == len(again) > 0, (len(committed), len(again))
for n, (a, b) in enumerate(zip(committed, again), 1):
    assert a == b, f"record {n}: the committed AST is not what the converter makes of its trace today"
print(f"{sys.argv[1]}: {len(again)} records converted again, identical")
PY
done
# A second CPU's records (docs/data.md, "A second CPU"): the traces file of its
# timings names the target the candidates were built for, and each form converts
# for its own target, so an AVX2-only CPU's programs are x86.avx2 (8 lanes) and
# the record's intrinsic follows its AST; latency, hardware and provenance are kept.
first_task "$(ls "$src"/data/metaschedule/*.float32.jsonl.gz | head -n 1)"
"$py" -c "import json,sys; f=json.load(sys.stdin); f['target']={'kind':'llvm','mcpu':'znver3','num-cores':1}; print(json.dumps(f))" \
  < "$work/one.traces.jsonl" > "$work/znver3.traces.jsonl"
PYTHONPATH=$src/python "$py" -m ucmoh.tvm.reconvert --traces "$work/znver3.traces.jsonl" --records "$work/one.jsonl" \
  -o "$work/avx2.jsonl" --jobs 1
"$py" - "$work/one.jsonl" "$work/avx2.jsonl" <<'PY'
import json, sys
collected, avx2 = ([json.loads(line) for line in open(p)] for p in sys.argv[1:])
assert len(collected) == len(avx2) > 0 and {r["intrinsic"] for r in collected} == {"x86.avx512"}
for a, b in zip(collected, avx2):
    assert b["intrinsic"] == b["ast"]["intrinsic"] == "x86.avx2", b["intrinsic"]
    assert all(a[k] == b[k] for k in ("latency", "hardware", "provenance", "task")), "a record lost what it measured"
print(f"{len(avx2)} records converted for znver3: x86.avx2")
PY
