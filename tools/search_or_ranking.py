"""Did a model-guided search lose on ranking or on search? (issue 37)

    UCMOH_LIBRARY=build/lib/libucmoh.so PYTHONPATH=python .venv/bin/python tools/search_or_ranking.py \\
        --pulled OUT/pulled --ours OURS.jsonl --theirs THEIRS.jsonl

OURS and THEIRS are two tuning runs of the same network on the same host, each
its database imported as records (`registry import metaschedule`): the run the
pulled model guided, and another (XGBModel's). Per task where THEIRS found the
faster best program, the pulled model scores both runs' best programs: if it
scores theirs higher, it would have chosen that program had its own search
proposed it, so the loss is the search's (what was proposed), not the ranking's.
Prints one JSON object.
"""
import argparse
import json
import sys

import numpy as np

import ucmoh
from ucmoh.files import open_text


def best_per_task(path):
    """task -> (latency, record line) of the run's fastest measured program."""
    best = {}
    with open_text(path) as f:  # gzip or not, as the other tools read records
        for line in f:
            record = json.loads(line)
            key, latency = record["task"]["key"], record["latency"]["mean_s"]
            if key not in best or latency < best[key][0]:
                best[key] = (latency, line.rstrip("\n") + "\n")  # one record a line when two are joined
    return best


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--pulled", required=True)
    p.add_argument("--plugins", default="plugins.json")
    p.add_argument("--ours", required=True, help="the run the pulled model guided, as records")
    p.add_argument("--theirs", required=True, help="the other run of the same tasks, as records")
    args = p.parse_args(argv)
    model = ucmoh.open(args.pulled, None, plugins=args.plugins)
    ours, theirs = best_per_task(args.ours), best_per_task(args.theirs)
    common = sorted(set(ours) & set(theirs))
    if not common:
        print(f"search_or_ranking: {args.ours} and {args.theirs} share no task", file=sys.stderr)
        return 1
    theirs_faster = [t for t in common if theirs[t][0] < ours[t][0]]
    preferred = 0
    for task in theirs_faster:
        scores = np.array(list(model.score(ours[task][1] + theirs[task][1], format="records")))
        preferred += bool(scores[1] > scores[0])
    print(json.dumps({"tasks": len(common), "theirs_faster": len(theirs_faster),
                      "model_prefers_theirs": preferred}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
