#!/usr/bin/env python3
"""ctest entry: pulled models checked in Python for every network
configuration and every intrinsic with data.

usage: pulled_model_python_test.py --registry BIN --fixture BIN --plugins JSON --work DIR [--programs N]

1. pulled_model_fixture (C++) writes one registry per configuration of
   tests/export_check/export_cases.cpp, each holding a briefly trained version,
   and a records file per intrinsic (N programs each, evenly spaced);
2. for each registry, `registry pull ucmoh@latest -o DIR` and, per intrinsic,
   `registry predict --export-tokens` (the registry's C++ scores);
3. check_pulled_model.py compares torch.jit.load(DIR/model.pt) with them.

Exits 77 (skipped) only when this python cannot import torch.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_pulled_model  # noqa: E402

X86 = ["x86.avx2", "x86.avx512", "x86.vnni", "x86.bf16"]
TENSOR_CORE_INTRINSICS = 6


def run(command):
    done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if done.returncode != 0:
        sys.exit(f"failed ({done.returncode}): {' '.join(command)}\n{done.stdout}")
    return done.stdout


def check_case(torch, args, case, records):
    """Pulls one configuration's model and checks it on every intrinsic."""
    registry = [args.registry, "--plugins", args.plugins, "--db", case["db"]]
    pulled = os.path.join(args.work, case["name"], "pulled")
    run(registry + ["pull", "ucmoh@latest", "-o", pulled])
    manifest = json.load(open(os.path.join(pulled, "manifest.json")))
    problems = [f"manifest network {manifest['network']} != {case['network']}"] \
        if manifest["network"] != case["network"] else []
    tokens = {}
    for intrinsic, path in records.items():
        tokens[intrinsic] = os.path.join(args.work, case["name"], f"tokens-{intrinsic}.json")
        run(registry + ["predict", "--model", "ucmoh@latest", "--data", path, "--export-tokens", tokens[intrinsic]])
    results = check_pulled_model.check_pulled_dir(torch, pulled, list(tokens.values()))
    for intrinsic, path in tokens.items():
        a = results[path]
        print(f"{'ok  ' if a['ok'] else 'FAIL'} {case['name']} {intrinsic}: {check_pulled_model.describe(a)}")
        if not a["ok"]:
            problems.append(f"{case['name']} {intrinsic}")
        os.remove(path)
    return problems


def coverage_problems(fixture):
    records = fixture["records"]
    problems = [f"no records of {i}" for i in X86 if i not in records]
    tensor_core = [i for i in records if i.startswith("tensorcore.")]
    if fixture["cutlass_present"] and len(tensor_core) != TENSOR_CORE_INTRINSICS:
        problems.append(f"CUTLASS data gave {len(tensor_core)} tensor-core intrinsics, not {TENSOR_CORE_INTRINSICS}")
    if not fixture["cutlass_present"]:
        print(f"note: no CUTLASS data at {fixture['cutlass_dir']}: tensor-core intrinsics not checked")
    return problems


def main():
    parser = argparse.ArgumentParser()
    for flag in ("--registry", "--fixture", "--plugins", "--work"):
        parser.add_argument(flag, required=True)
    parser.add_argument("--programs", type=int, default=300)
    args = parser.parse_args()
    torch = check_pulled_model.import_torch()
    start = time.time()
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    run([args.fixture, args.work, str(args.programs)])
    fixture = json.load(open(os.path.join(args.work, "fixture.json")))
    problems = coverage_problems(fixture)
    for case in fixture["cases"]:
        problems += check_case(torch, args, case, fixture["records"])
    print(f"python torch {torch.__version__}: {len(fixture['cases'])} configurations x "
          f"{len(fixture['records'])} intrinsics in {time.time() - start:.1f} s")
    if problems:
        print("FAILED: " + "; ".join(problems))
        return 1
    shutil.rmtree(args.work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
