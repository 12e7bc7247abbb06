"""The noise ceiling of collected MetaSchedule data: the second pass against the first.

    .venv/bin/python tools/ms_noise.py WORK_DIR...

`python -m ucmoh.tvm.collect --remeasure-every N` builds and runs every
candidate of every Nth finished task again and keeps both latencies in the
task's remeasure.json. A model cannot rank a task's candidates better than a
second measurement of them does: this prints that ceiling, PCA (pairs of
distinct first-pass latency ordered the same by the second pass) and Kendall's
tau per task, averaged over tasks, and the median relative difference of a
candidate's two latencies.
"""
import glob
import json
import os
import sys

import numpy as np
from scipy.stats import kendalltau


def main(dirs):
    pcas, taus, diffs, candidates, tasks = [], [], [], 0, 0
    for d in dirs:
        for path in sorted(glob.glob(os.path.join(d, "*", "remeasure.json"))):
            pairs = json.load(open(path))["pairs"]
            first = np.array([p["first_s"] for p in pairs])
            again = np.array([p["again_s"] for p in pairs])
            if len(pairs) < 2:
                continue
            tasks += 1
            candidates += len(pairs)
            diffs += list(np.abs(again - first) / first)
            ordered = [(a, b) for a in range(len(pairs)) for b in range(len(pairs)) if first[a] < first[b]]
            pcas.append(np.mean([again[a] < again[b] for a, b in ordered]))
            taus.append(kendalltau(first, again).statistic)
    if not tasks:
        sys.exit("ms_noise: no remeasure.json under " + ", ".join(dirs) + " (collect with --remeasure-every N)")
    print(json.dumps({"tasks": tasks, "candidates": candidates, "pca": float(np.mean(pcas)),
                      "pca_std": float(np.std(pcas)), "kendall_tau": float(np.mean(taus)),
                      "median_relative_difference": float(np.median(diffs))}))


if __name__ == "__main__":
    main(sys.argv[1:])
