#!/usr/bin/env bash
# The installed package, as a vendor and a user meet it:
#   1. `cmake --install` the build into a fresh prefix;
#   2. the installed registry, run from an empty folder, finds its own
#      manifest (PREFIX/share/ucmoh/plugins.json) and loads every plugin;
#   3. toyaccel, configured out of tree with find_package(ucmoh) against that
#      prefix alone, builds and loads beside the installed plugins.
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
