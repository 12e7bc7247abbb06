"""The noise ceiling of collected MetaSchedule data: the second pass against the first.

    .venv/bin/python tools/ms_noise.py WORK_DIR_OR_FILE... [--write FILE.jsonl.gz]

`python -m ucmoh.tvm.collect --remeasure-every N` builds and runs every
candidate of every Nth finished task again and keeps both latencies in the
task's remeasure.json. A model cannot rank a task's candidates better than a
second measurement of them does: this prints that ceiling, PCA (pairs of
distinct first-pass latency ordered the same by the second pass) and Kendall's
tau per task, averaged over tasks, and the median relative difference of a
candidate's two latencies. A FILE argument is what `--write` makes of work
directories: their remeasure.json forms, one a line (gzip where it ends in .gz),
so a committed second pass (data/metaschedule/<host>.<dtype>.remeasure.jsonl.gz)
gives its ceiling without the work directory.
"""
import argparse
import glob
import json
import os
import sys

import numpy as np
from scipy.stats import kendalltau

from ucmoh.files import open_text, write_atomic


def forms(sources):
    """The remeasure forms of work directories and of files --write made."""
    for source in sources:
        if os.path.isdir(source):
            for path in sorted(glob.glob(os.path.join(source, "*", "remeasure.json"))):
                yield json.load(open(path))
        elif os.path.isfile(source):
            yield from (json.loads(line) for line in open_text(source))
        else:
            sys.exit(f"ms_noise: {source}: no such work directory or file")


def ceiling(form_list):
    """PCA and Kendall tau per task of the second pass against the first, and
    each candidate's relative difference."""
    pcas, taus, diffs, candidates = [], [], [], 0
    for form in form_list:
        pairs = form["pairs"]
        if len(pairs) < 2:
            continue
        first = np.array([p["first_s"] for p in pairs])
        again = np.array([p["again_s"] for p in pairs])
        candidates += len(pairs)
        diffs += list(np.abs(again - first) / first)
        ordered = [(a, b) for a in range(len(pairs)) for b in range(len(pairs)) if first[a] < first[b]]
        pcas.append(np.mean([again[a] < again[b] for a, b in ordered]))
        taus.append(kendalltau(first, again).statistic)
    return pcas, taus, diffs, candidates


def main(argv):
    p = argparse.ArgumentParser(prog="tools/ms_noise.py", description=__doc__.splitlines()[0])
    p.add_argument("sources", nargs="+", help="collector work directories, or files --write made")
    p.add_argument("--write", default="", help="also keep every remeasure form found here (JSON Lines, .gz compresses)")
    args = p.parse_args(argv)
    found = list(forms(args.sources))
    pcas, taus, diffs, candidates = ceiling(found)
    if not pcas:
        sys.exit("ms_noise: no remeasure.json under " + ", ".join(args.sources) + " (collect with --remeasure-every N)")
    if args.write:
        write_atomic(args.write, "".join(json.dumps(f, separators=(",", ":"), sort_keys=True) + "\n" for f in found))
    print(json.dumps({"tasks": len(pcas), "candidates": candidates, "pca": float(np.mean(pcas)),
                      "pca_std": float(np.std(pcas)), "kendall_tau": float(np.mean(taus)),
                      "median_relative_difference": float(np.median(diffs))}))


if __name__ == "__main__":
    main(sys.argv[1:])
