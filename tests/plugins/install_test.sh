#!/usr/bin/env bash
# The installed package, as a vendor and a user meet it:
#   1. `cmake --install` the build into a fresh prefix;
#   2. the installed registry, run from an empty folder, finds its own
#      manifest (PREFIX/share/ucmoh/plugins.json) and loads every plugin;
#   3. toyaccel, configured out of tree with find_package(ucmoh) against that
#      prefix alone, builds and loads beside the installed plugins;
#   4. toyaccel again, built with clang and libc++ (not GCC and libstdc++),
#      loads into the GCC-built registry and lowers every program to the same
#      ASTs as the GCC build: only the C ABI crosses the library boundary.
#   install_test.sh BUILD_DIR SOURCE_DIR REAL_PLUGINS(comma-separated)
set -euo pipefail
build=$1 src=$2 real=$3
work=$(mktemp -d "${TMPDIR:-/tmp}/ucmoh-install.XXXXXX")
trap 'rm -rf "$work"' EXIT
py=/usr/bin/python3
unset UCMOH_PLUGINS UCMOH_REGISTRY

run() {  # log-name command... ; shows the log only when the command fails
  local name=$1; shift
  "$@" > "$work/$name.log" 2>&1 || { cat "$work/$name.log"; echo "FAILED: $*"; exit 1; }
}

run install cmake --install "$build" --prefix "$work/prefix"
registry=$work/prefix/bin/registry
mkdir "$work/empty"
(cd "$work/empty" && "$registry" plugins --json) > "$work/installed.json"
$py - "$work/installed.json" "$real" <<'PY'
import json, sys
names = sorted(p["name"] for p in json.load(open(sys.argv[1]))["plugins"])
want = sorted(sys.argv[2].split(","))
assert names == want, f"installed registry loaded {names}, expected {want}"
print("installed registry loads", ", ".join(names))
PY

run configure cmake -S "$src/tests/plugins/toyaccel" -B "$work/toyaccel" \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$work/prefix"
run build cmake --build "$work/toyaccel"
abi=$(sed -n 's/.*UCMoH plugin ABI \([0-9]*\).*/\1/p' "$work/configure.log")
[[ -n $abi ]] || { echo "configure did not report UCMOH_PLUGIN_ABI"; exit 1; }

$py - "$work/prefix/share/ucmoh/plugins.json" "$work/toyaccel/libucmoh_toyaccel.so" "$abi" \
  > "$work/vendor.json" <<'PY'
import json, os, sys
manifest, library, abi = sys.argv[1], sys.argv[2], int(sys.argv[3])
plugins = json.load(open(manifest))["plugins"]
for p in plugins:  # the installed entries are relative to the installed manifest
    p["library"] = os.path.normpath(os.path.join(os.path.dirname(manifest), p["library"]))
plugins.append({"name": "toyaccel", "library": library, "abi": abi})
print(json.dumps({"plugins": plugins}))
PY
"$registry" --plugins "$work/vendor.json" plugins --json > "$work/vendor_loaded.json"
$py - "$work/vendor_loaded.json" <<'PY'
import json, sys
loaded = {p["name"]: p for p in json.load(open(sys.argv[1]))["plugins"]}
assert "toyaccel" in loaded, f"toyaccel not loaded: {sorted(loaded)}"
intrinsics = [i["name"] for i in loaded["toyaccel"]["intrinsics"]]
assert intrinsics == ["toyaccel.mac16x16"], intrinsics
print("out-of-tree toyaccel loads beside", ", ".join(sorted(set(loaded) - {"toyaccel"})))
PY

# 4. The same plugin from another toolchain: clang++ -stdlib=libc++.
run configure_libcxx cmake -S "$src/tests/plugins/toyaccel" -B "$work/toyaccel_libcxx" \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_CXX_COMPILER=clang++ \
  -DCMAKE_CXX_FLAGS=-stdlib=libc++ -DCMAKE_MODULE_LINKER_FLAGS="-stdlib=libc++"
run build_libcxx cmake --build "$work/toyaccel_libcxx"
libcxx_plugin=$work/toyaccel_libcxx/libucmoh_toyaccel.so
needed=$(objdump -p "$libcxx_plugin" | sed -n 's/ *NEEDED *//p' | tr '\n' ' ')
[[ $needed == *libc++.so* && $needed != *libstdc++* ]] ||
  { echo "the clang build should need libc++ and not libstdc++; it needs: $needed"; exit 1; }

# A few toyaccel programs as records, and their ASTs through each build.
"$registry" --plugins "$work/vendor.json" plugins --json > "$work/loaded.json"
$py - "$work/loaded.json" > "$work/toyaccel.jsonl" <<'PY'
import json, sys
hw = next(p for p in json.load(open(sys.argv[1]))["plugins"] if p["name"] == "toyaccel")["hardware"]
for m, tile, order in [(128, 32, "mn"), (256, 64, "nm"), (512, 128, "mn")]:
    print(json.dumps({"target": "toyaccel", "intrinsic": "toyaccel.mac16x16",
        "task": {"key": f"t.gemm.m{m}", "op": "gemm", "workload": {"m": m, "n": 256, "k": 256}},
        "schedule": {"tile_m": tile, "tile_n": 64, "tile_k": 64, "double_buffer": 1, "order": order},
        "latency": {"median_s": 1e-4, "mean_s": 1e-4, "min_s": 1e-4, "cv": 0, "repeats": 1},
        "provenance": {"kind": "measured", "source": "install_test", "details": {}}, "hardware": hw}))
PY
sed "s#$work/toyaccel/libucmoh_toyaccel.so#$libcxx_plugin#" "$work/vendor.json" > "$work/vendor_libcxx.json"
"$registry" --plugins "$work/vendor.json" features "$work/toyaccel.jsonl" --dump-ast > "$work/ast_gcc.jsonl"
"$registry" --plugins "$work/vendor_libcxx.json" features "$work/toyaccel.jsonl" --dump-ast > "$work/ast_libcxx.jsonl"
[[ -s $work/ast_gcc.jsonl ]] || { echo "no ASTs from the GCC-built toyaccel"; exit 1; }
cmp "$work/ast_gcc.jsonl" "$work/ast_libcxx.jsonl" ||
  { echo "the clang/libc++ toyaccel lowers differently from the GCC one"; exit 1; }
echo "clang/libc++ toyaccel ($needed) loads into the GCC registry and lowers $(wc -l < "$work/ast_gcc.jsonl") programs identically"
