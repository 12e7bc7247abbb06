"""MetaSchedule's MLPModel pretrained on the tuning study's training data (issue 37):
TVM's own pretraining anchor, beside the registry's model.

    .venv/bin/python tools/ms_mlp_client.py --held-out bert_base,resnet18 -o MODEL.pt [--seed 0] \
        --traces data/metaschedule/*.traces.jsonl.gz --records (the same collections' records)

pretrains SegmentSumMLP (tools/ms_mlp.py, TVM's defaults) on PerStoreFeature of
every committed MetaSchedule candidate except the held-out networks' tasks (the
same records tools/tvm-study-pretrain gives the registry). In a tuning run,
`SidecarMLP(MODEL.pt)` is the cost model: it extracts PerStoreFeature here, in
TVM's process, and asks tools/ms_mlp.py --serve (Debian's python3-torch: the
.venv has no torch) to score, and after every measured batch to train
incrementally, as MLPModel does.
"""
import argparse
import json
import os
import subprocess
import sys

import numpy as np
import tvm.s_tir.meta_schedule as ms
from tvm.ir.utils import derived_object
from tvm.s_tir.meta_schedule.cost_model import PyCostModel

from ucmoh.tvm.database import runner_latency
from ms_baselines import TORCH_PYTHON, load_tasks, perstore_rows

_SERVER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ms_mlp.py")


@derived_object
class SidecarMLP(PyCostModel):
    """MLPModel's predict and incremental update over a pretrained SegmentSumMLP."""

    def __init__(self, model_path):
        super().__init__()
        self.server = subprocess.Popen([TORCH_PYTHON, _SERVER, "--serve", model_path],
                                       stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.extractor = ms.feature_extractor.PerStoreFeature(extract_workload=True)

    def _ask(self, request, context, candidates):
        rows = [f.numpy().astype("float32") for f in self.extractor.extract_from(context, candidates)]
        request["segments"] = [len(r) for r in rows]
        self.server.stdin.write((json.dumps(request) + "\n").encode() + np.concatenate(rows).tobytes())
        self.server.stdin.flush()
        answer = self.server.stdout.readline()
        if not answer:
            raise RuntimeError(f"{_SERVER} --serve exited ({self.server.wait()})")
        return json.loads(answer)

    def load(self, path):
        pass

    def save(self, path):
        pass

    def predict(self, context, candidates):
        if not candidates:
            return np.zeros(0)
        return np.array(self._ask({"op": "predict"}, context, candidates)["scores"], dtype="float64")

    def update(self, context, candidates, results):
        measured = [(c, runner_latency(r)) for c, r in zip(candidates, results)]
        measured = [(c, latency) for c, latency in measured if latency is not None]
        if len(measured) >= 2:
            self._ask({"op": "update", "costs": [cost for _, cost in measured]}, context, [c for c, _ in measured])


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--traces", nargs="+", required=True)
    p.add_argument("--records", nargs="+", required=True)
    p.add_argument("--held-out", required=True, help="networks whose tasks stay out (ucmoh.tvm.hold_out)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("-o", "--output", required=True)
    args = p.parse_args()
    from ucmoh.tvm.hold_out import held_out_tasks
    from ucmoh.tvm.vnni import register
    register()  # int8 traces name dot_16x4_vnni
    held = held_out_tasks(args.held_out.split(","))
    tasks = load_tasks(args.traces, args.records, keep=lambda name: name not in held)
    features, segments, labels, task_ids = perstore_rows(tasks)
    print(f"ms_mlp pretraining: {len(tasks)} tasks, {len(segments)} candidates", file=sys.stderr)
    npz = args.output + ".features.npz"
    np.savez(npz, features=features, segments=segments, labels=labels, task=task_ids,
             train=np.ones(len(segments), dtype=bool))
    try:
        subprocess.run([TORCH_PYTHON, _SERVER, "--save", args.output, npz, str(args.seed)], check=True)
    finally:
        os.remove(npz)


if __name__ == "__main__":
    main()
