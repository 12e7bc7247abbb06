#!/usr/bin/env python3
"""ctest entry: pulled models checked in Python for every network
configuration and every intrinsic with data.

usage: pulled_model_python_test.py --registry BIN --fixture BIN --plugins JSON --work DIR [--programs N]

1. pulled_model_fixture (C++) writes one registry per configuration of
   tests/export_check/export_cases.cpp, each holding a briefly trained version,
   and a records file per target (N programs of each intrinsic, evenly spaced);
2. for each registry, `registry pull ucmoh@latest -o DIR` and, per records
   file, `registry predict --export-tokens` (the registry's C++ scores);
3. torch.jit.load(DIR/model.pt) is compared with them intrinsic by intrinsic
   (check_pulled_model.py's rule).

Exits 77 (skipped) only when this python cannot import torch, and not under CI
(with CI set that fails).
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


def check_file(torch, model, case, tokens, rows):
    """Problems of one tokens file, checked per intrinsic (rows [begin, end))."""
    cpp, got = check_pulled_model.score_tokens_file(torch, model, tokens)
    if got.shape != cpp.shape:
        return [f"{case['name']} {tokens}: shape {tuple(got.shape)} != {tuple(cpp.shape)}"]
    problems = []
    for r in rows:
        a = check_pulled_model.agreement(torch, cpp[r["begin"]:r["end"]], got[r["begin"]:r["end"]])
        print(f"{'ok  ' if a['ok'] else 'FAIL'} {case['name']} {r['intrinsic']}: {check_pulled_model.describe(a)}")
        if not a["ok"]:
            problems.append(f"{case['name']} {r['intrinsic']}")
    return problems


def check_case(torch, args, case, records):
    """Pulls one configuration's model and checks it on every intrinsic."""
    registry = [args.registry, "--plugins", args.plugins, "--db", case["db"]]
    pulled = os.path.join(args.work, case["name"], "pulled")
    run(registry + ["pull", "ucmoh@latest", "-o", pulled])
    manifest = json.load(open(os.path.join(pulled, "manifest.json")))
    problems = [f"manifest network {manifest['network']} != {case['network']}"] \
        if manifest["network"] != case["network"] else []
    model = check_pulled_model.load_model(torch, pulled)
    for path, rows in records.items():
        tokens = os.path.join(args.work, case["name"], "tokens.json")
        run(registry + ["predict", "--model", "ucmoh@latest", "--data", path, "--export-tokens", tokens])
        problems += check_file(torch, model, case, tokens, rows)
        os.remove(tokens)
    return problems


def coverage_problems(fixture):
    records = [r["intrinsic"] for rows in fixture["records"].values() for r in rows]
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
    intrinsics = sum(len(rows) for rows in fixture["records"].values())
    print(f"python torch {torch.__version__}: {len(fixture['cases'])} configurations x "
          f"{intrinsics} intrinsics in {time.time() - start:.1f} s")
    if problems:
        print("FAILED: " + "; ".join(problems))
        return 1
    shutil.rmtree(args.work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
