#!/usr/bin/env bash
# libucmoh and the Python package as a compiler meets them, from an install:
#   1. `cmake --install` into a fresh prefix;
#   2. the installed registry trains a version on measured x86 records and
#      pulls it; `features --dump-ast` writes the records as AST programs;
#   3. a C program, configured with find_package(ucmoh) against the prefix
#      alone, scores those ASTs from the pulled model: the same scores as
#      `registry predict --ast` and `--data`; it refuses a model of an unknown
#      feature schema;
#   4. the Python tests (test_python_package.py) with Debian's python3 and
#      the installed package: score, update, commit, info, refusals.
#   sdk_test.sh BUILD_DIR SOURCE_DIR c|python   (1-3, or 1, 2 and 4)
# ctest runs the two as sdk_c and sdk_python: the sanitizer stage runs sdk_c
# (the client then built with $UCMOH_SDK_CLIENT_FLAGS, the sanitizers) and
# leaves sdk_python out, since Debian's python3 is not built with them.
set -euo pipefail
build=$1 src=$2 mode=${3:?sdk_test.sh BUILD_DIR SOURCE_DIR c|python}
work=$(mktemp -d "${TMPDIR:-/tmp}/ucmoh-sdk.XXXXXX")
trap 'rm -rf "$work"' EXIT
py=/usr/bin/python3
unset UCMOH_PLUGINS UCMOH_REGISTRY UCMOH_LIBRARY

run() {  # log-name command... ; shows the log only when the command fails
  local name=$1; shift
  "$@" > "$work/$name.log" 2>&1 || { cat "$work/$name.log"; echo "FAILED: $*"; exit 1; }
}

run install cmake --install "$build" --prefix "$work/prefix"
registry=$work/prefix/bin/registry
plugins=$work/prefix/share/ucmoh/plugins.json
db=$work/registry.db
(zcat "$src/data/x86/x86.avx2.jsonl.gz" || true) | head -n 1500 > "$work/records.jsonl"  # zcat: SIGPIPE
run init "$registry" --db "$db" init
run add "$registry" --db "$db" records add "$work/records.jsonl"
run learn "$registry" --db "$db" add-intrinsic x86.avx2 --epochs 2
run pull "$registry" --db "$db" pull ucmoh@1 -o "$work/pulled"
head -n 300 "$work/records.jsonl" > "$work/sample.jsonl"
"$registry" features --dump-ast "$work/sample.jsonl" > "$work/sample.ast.jsonl"
"$registry" --db "$db" predict --model ucmoh@1 --ast "$work/sample.ast.jsonl" --json > "$work/predict_ast.json"
"$registry" --db "$db" predict --model ucmoh@1 --data "$work/sample.jsonl" --json > "$work/predict_records.json"

# A pulled model of a feature schema from the future: both clients must refuse it.
cp -r "$work/pulled" "$work/future"
$py - "$work/future/manifest.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1])); m["feature_schema"]["version"] = 99
json.dump(m, open(sys.argv[1], "w"))
PY

if [[ $mode == c ]]; then
flags=${UCMOH_SDK_CLIENT_FLAGS:-}
run configure cmake -S "$src/tests/sdk/c_client" -B "$work/c_client" -DCMAKE_PREFIX_PATH="$work/prefix" \
  -DCMAKE_C_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="$flags"
run build cmake --build "$work/c_client"
"$work/c_client/score_programs" "$work/pulled" "$plugins" "$work/sample.ast.jsonl" > "$work/c_scores.txt"
$py - "$work/c_scores.txt" "$work/predict_ast.json" "$work/predict_records.json" <<'PY'
import json, struct, sys
f32 = lambda x: struct.unpack("f", struct.pack("f", x))[0]  # both sides print float32 scores
c = [f32(float(x)) for x in open(sys.argv[1])]
ast = [f32(x) for x in json.load(open(sys.argv[2]))["scores"]]
records = [f32(x) for x in json.load(open(sys.argv[3]))["scores"]]
assert len(c) == len(ast) == len(records) == 300, (len(c), len(ast), len(records))
assert ast == records, "predict --ast and --data disagree"
worst = max(abs(a - b) for a, b in zip(c, ast))
assert worst == 0.0, f"C API scores differ from registry predict by up to {worst}"
print("C client: 300 AST programs scored, identical to registry predict --ast and --data")
PY
"$work/c_client/score_programs" --expect-refusal "$work/future" "$plugins" | tee "$work/refusal.txt"
grep -q "feature schema 99" "$work/refusal.txt"
exit 0
fi

site=$(find "$work/prefix" -type d -name dist-packages | head -n 1)
[[ -f $site/ucmoh/__init__.py && -f $site/ucmoh/_install.py ]] || { echo "Python package not installed under $work/prefix"; exit 1; }
cd "$work"
UCMOH_TEST_REGISTRY=$db UCMOH_TEST_PULLED=$work/pulled UCMOH_TEST_PLUGINS=$plugins \
UCMOH_TEST_AST=$work/sample.ast.jsonl UCMOH_TEST_PREDICT=$work/predict_ast.json \
UCMOH_TEST_FUTURE=$work/future UCMOH_TEST_REGISTRY_TOOL=$registry UCMOH_TEST_RECORDS=$work/sample.jsonl \
  PYTHONPATH=$site $py "$src/tests/sdk/test_python_package.py" -v
