#!/usr/bin/env python3
"""Checks a pulled model directory against the registry's own scores.

usage: check_pulled_model.py DIR TOKENS.json [TOKENS.json ...]

DIR is what `registry pull REF -o DIR` wrote (model.pt, manifest.json); each
TOKENS.json is what `registry predict --model REF --data FILE --export-tokens
TOKENS.json` wrote: the padded raw tokens, their mask and the registry's C++
scores (CostModel::Predict). torch.jit.load(DIR/model.pt) must give those
scores within RELATIVE_TOLERANCE of the score scale (the largest |C++ score|
of the file) and rank the programs the same: a pair the two order differently
is allowed only when its C++ scores tie within that tolerance. The rule is
tests/export_check/score_agreement.cpp's.

Exit status: 0 all agree, 1 a difference, 77 when torch cannot be imported
(ctest SKIP_RETURN_CODE).
"""
import json
import os
import sys

RELATIVE_TOLERANCE = 1e-5
SKIP = 77


def import_torch():
    try:
        import torch  # noqa: F401
        return torch
    except ImportError as e:
        # In CI a skip is a test that did not run: fail with the reason instead.
        in_ci = os.environ.get("CI", "") not in ("", "false")
        print(f"check_pulled_model: {sys.executable} cannot import torch ({e}); "
              + ("failing: CI runs this test (tools/setup installs python3-torch)" if in_ci else "skipping"))
        sys.exit(1 if in_ci else SKIP)


def agreement(torch, cpp, got):
    """The ScoreAgreement of two 1-D float tensors, as a dict."""
    diff = (got.double() - cpp.double()).abs()
    scale = cpp.double().abs().max().item() if len(cpp) else 0.0
    tolerance = RELATIVE_TOLERANCE * scale
    pair_cpp = cpp.double()[:, None] - cpp.double()[None, :]
    pair_got = got.double()[:, None] - got.double()[None, :]
    discordant = torch.triu(torch.sign(pair_cpp) != torch.sign(pair_got), diagonal=1)
    beyond = discordant & (pair_cpp.abs() > tolerance)
    max_diff = diff.max().item() if len(cpp) else 0.0
    return {
        "programs": len(cpp),
        "max_abs_diff": max_diff,
        "scale": scale,
        "relative": max_diff / scale if scale > 0 else max_diff,
        "tolerance": tolerance,
        "same_order": torch.equal(torch.sort(cpp, descending=True, stable=True).indices,
                                  torch.sort(got, descending=True, stable=True).indices),
        "discordant_pairs": int(discordant.sum().item()),
        "discordant_beyond_tolerance": int(beyond.sum().item()),
        "max_discordant_gap": pair_cpp.abs()[discordant].max().item() if discordant.any() else 0.0,
        "ok": bool(torch.isfinite(diff).all().item()) and max_diff <= tolerance and int(beyond.sum().item()) == 0,
    }


def load_model(torch, model_dir):
    model = torch.jit.load(os.path.join(model_dir, "model.pt"))
    model.eval()
    return model


def score_tokens_file(torch, model, tokens_path):
    """(C++ scores, the module's scores) of one --export-tokens file."""
    data = json.load(open(tokens_path))
    tokens = torch.tensor(data["tokens"], dtype=torch.float32)
    valid = torch.tensor(data["valid"], dtype=torch.float32)
    cpp = torch.tensor(data["scores"], dtype=torch.float32)
    with torch.no_grad():
        got = model(tokens, valid)
    return cpp, got


def check_tokens_file(torch, model, tokens_path):
    cpp, got = score_tokens_file(torch, model, tokens_path)
    if got.shape != cpp.shape:
        return {"programs": len(cpp), "ok": False, "error": f"shape {tuple(got.shape)} != {tuple(cpp.shape)}"}
    return agreement(torch, cpp, got)


def describe(a):
    if "error" in a:
        return a["error"]
    return (f"{a['programs']} programs, max |diff| {a['max_abs_diff']:.3g} (scale {a['scale']:.3g}, "
            f"relative {a['relative']:.3g}, tolerance {a['tolerance']:.3g}), "
            f"same order {'yes' if a['same_order'] else 'no'}, discordant pairs {a['discordant_pairs']} "
            f"(largest C++ gap {a['max_discordant_gap']:.3g}; {a['discordant_beyond_tolerance']} beyond tolerance)")


def check_pulled_dir(torch, model_dir, tokens_files):
    """{tokens file: agreement} for one pulled directory."""
    model = load_model(torch, model_dir)
    return {path: check_tokens_file(torch, model, path) for path in tokens_files}


def main(argv):
    if len(argv) < 3:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    torch = import_torch()
    results = check_pulled_dir(torch, argv[1], argv[2:])
    for path, a in results.items():
        print(f"{'ok  ' if a['ok'] else 'FAIL'} {path}: {describe(a)}")
    print(f"python torch {torch.__version__}: {len(results)} file(s), "
          f"{sum(not a['ok'] for a in results.values())} with a difference")
    return 0 if all(a["ok"] for a in results.values()) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
