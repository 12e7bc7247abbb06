"""Zero-shot ranking of the held-out networks' tasks (issue 37): how well the
pretrained models rank the committed, measured candidates of tasks they never saw.

    UCMOH_LIBRARY=build/lib/libucmoh.so PYTHONPATH=python .venv/bin/python tools/held_out_pca.py \
        --pulled OUT/pulled [--mlp OUT/mlp.pt] --networks bert_base,resnet18 --dtype float32 [--json OUT.json]

Per held-out task (ucmoh.tvm.hold_out: by the tasks' network weights) of the
committed data/metaschedule collection: PCA and top-1 (tools/ms_baselines.py's
definitions, as in docs/benchmarks.md) of the pulled UCMoH version scoring the
records, and of the pretrained MLPModel (tools/ms_mlp_client.py) scoring the
same candidates' PerStoreFeature. Prints a markdown table and the means.

With `--records FILE...` it scores those records instead, every task in them,
the files pooled per task: e.g. tuning runs' databases imported with
`registry import metaschedule`, to see how the pulled model ranks the
candidates a search found on the host that ran it (docs/benchmarks.md, (S15)).
"""
import argparse
import glob
import json
import os
import sys

import numpy as np

import ucmoh
from ucmoh.files import open_text
from ms_baselines import load_tasks, pca, top1
from ucmoh.tvm.hold_out import held_out_tasks


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--pulled", required=True)
    p.add_argument("--plugins", default="plugins.json")
    p.add_argument("--mlp")
    p.add_argument("--networks", help="the held-out networks (required without --records)")
    p.add_argument("--dtype", default="float32", choices=["float32", "int8"])
    p.add_argument("--records", nargs="+", help="score these records files, every task in them, instead")
    p.add_argument("--json")
    args = p.parse_args()
    if args.records and args.mlp:
        p.error("--mlp scores the committed collection's traces; it does not take --records")
    if not args.records and not args.networks:
        p.error("--networks is required (or --records)")
    held = held_out_tasks(args.networks.split(",")) if args.networks else set()
    data = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "metaschedule")
    records_paths = args.records or sorted(glob.glob(os.path.join(data, f"*.{args.dtype}.jsonl.gz")))
    traces_paths = [r.replace(".jsonl.gz", ".traces.jsonl.gz") for r in records_paths]
    by_task = {}
    for records_path in records_paths:
        with open_text(records_path) as f:
            for line in f:
                record = json.loads(line)
                if args.records or record["task"]["key"] in held:
                    by_task.setdefault(record["task"]["key"], []).append(line)
    model = ucmoh.open(args.pulled, None, plugins=args.plugins)
    rows = {}
    for task, lines in sorted(by_task.items()):
        latency = [json.loads(line)["latency"]["mean_s"] for line in lines]
        scores = list(model.score("".join(lines), format="records"))
        rows[task] = {"candidates": len(lines), "ucmoh_pca": pca(latency, scores), "ucmoh_top1": top1(latency, scores)}
    if args.mlp:
        if args.dtype == "int8":
            from ucmoh.tvm.vnni import register
            register()
        from ms_mlp_client import SidecarMLP
        mlp = SidecarMLP(args.mlp)
        tasks = load_tasks(traces_paths, records_paths, keep=lambda name: name in held)
        for t in tasks:
            scores = list(mlp.predict(t.context, t.candidates))
            rows[t.name].update(mlp_pca=pca(t.latency, scores), mlp_top1=top1(t.latency, scores))
    print(f"| task | candidates | UCMoH PCA | UCMoH top-1 |" + (" MLP PCA | MLP top-1 |" if args.mlp else ""))
    print("|---|---|---|---|" + ("---|---|" if args.mlp else ""))
    for task, r in rows.items():
        cells = [str(r["candidates"]), f"{r['ucmoh_pca']:.3f}", f"{r['ucmoh_top1']:.3f}"]
        if args.mlp:
            cells += [f"{r['mlp_pca']:.3f}", f"{r['mlp_top1']:.3f}"]
        print(f"| {task} | " + " | ".join(cells) + " |")
    means = {k: float(np.mean([r[k] for r in rows.values()])) for k in next(iter(rows.values())) if k != "candidates"}
    print("| **mean** | " + str(sum(r["candidates"] for r in rows.values())) + " | "
          + " | ".join(f"**{means[k]:.3f}**" for k in means) + " |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"tasks": rows, "means": means}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
