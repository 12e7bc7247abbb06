#!/usr/bin/env bash
# Measures the tensorcore plugin's kernels on this host's GPU, one process per
# intrinsic (a kernel that faults ends only its own intrinsic's run), with a
# 10 % second pass for the noise ceiling. Writes into OUT_DIR:
#   <gpu>.jsonl         the records of the first pass (one per kernel that ran)
#   <gpu>.second.jsonl  the records of the second pass
#   measure.log         what each run printed (failures by reason)
#
#   tools/tensorcore-measure/measure-gpu.sh OUT_DIR [BINARY] [-- extra tensorcore-measure flags]
set -uo pipefail
out=${1:?usage: measure-gpu.sh OUT_DIR [BINARY] [-- flags]}
shift
binary=build/bin/tensorcore-measure
if [[ $# -gt 0 && $1 != -- ]]; then binary=$1; shift; fi
[[ ${1:-} == -- ]] && shift
[[ -x $binary ]] || { echo "measure-gpu.sh: $binary is not an executable (build it: tools/build)" >&2; exit 1; }
mkdir -p "$out"
log=$out/measure.log
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv >>"$log" 2>&1
name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr -c 'A-Za-z0-9\n' '-' | tr -s '-' | sed 's/-$//')
name=${name:-gpu}
tmp=$(mktemp -d)
status=0
for intrinsic in h1688 s1688 i8816 h16816 s16816 i16832; do
  "$binary" --intrinsics "tensorcore.$intrinsic" -o "$tmp/$intrinsic.jsonl" \
    --second-pass-every 10 --second-pass-out "$tmp/$intrinsic.second.jsonl" "$@" >>"$log" 2>&1 || status=1
  grep -E "^(pass|tensorcore-measure)" "$log" | tail -2
done
cat "$tmp"/*[0-9].jsonl >"$out/$name.jsonl" 2>/dev/null
cat "$tmp"/*.second.jsonl >"$out/$name.second.jsonl" 2>/dev/null
wc -l "$out/$name.jsonl" "$out/$name.second.jsonl"
exit $status
