# Sourced by the TVM tests (tvm_test.sh, collect_test.sh) after `src` is set:
# sets `py` to the .venv Python that tools/setup-tvm installs TVM into, and
# without it exits 77 (skip, saying why) outside CI and 1 (fail) in CI, which
# runs these tests.
py=$src/.venv/bin/python
if ! [[ -x $py ]] || ! "$py" -c "import tvm" 2>/dev/null; then
  if [[ -n ${CI:-} ]]; then echo "FAIL: no TVM in $src/.venv, and CI runs this test (tools/setup-tvm installs it)"; exit 1; fi
  echo "SKIP: no TVM in $src/.venv (run tools/setup-tvm)"; exit 77
fi
