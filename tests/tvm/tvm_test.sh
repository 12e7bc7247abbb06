#!/usr/bin/env bash
# ucmoh.tvm against the TVM that tools/setup-tvm installs into .venv: the TIR
# -> AST converter for every intrinsic kind, and a MetaSchedule tuning run that ranks with our model.
# Skips (77) only when .venv has no TVM; says so.
#   tvm_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1 src=$2
py=$src/.venv/bin/python
if ! [[ -x $py ]] || ! "$py" -c "import tvm" 2>/dev/null; then
  echo "SKIP: no TVM in $src/.venv (run tools/setup-tvm)"; exit 77
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/ucmoh-tvm.XXXXXX")
trap 'rm -rf "$work"' EXIT
registry=$build/bin/registry
(zcat "$src/data/x86/x86.avx2.jsonl.gz" || true) | head -n 1500 > "$work/records.jsonl"  # zcat: SIGPIPE
"$registry" --db "$work/registry.db" init > /dev/null
"$registry" --db "$work/registry.db" records add "$work/records.jsonl" > /dev/null
"$registry" --db "$work/registry.db" add-intrinsic x86.avx2 --epochs 2 > /dev/null
UCMOH_TEST_REGISTRY=$work/registry.db UCMOH_TEST_PLUGINS=$src/plugins.json UCMOH_TEST_WORK=$work \
UCMOH_LIBRARY=$build/lib/libucmoh.so PYTHONPATH=$src/python:$src/tests/tvm \
  "$py" -m unittest -v test_tir_to_ast test_tvm_cost_model
