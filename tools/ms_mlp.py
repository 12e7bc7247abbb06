"""MetaSchedule's MLPModel, trained offline on PerStoreFeature (baseline (c) of issue 36).

    /usr/bin/python3 tools/ms_mlp.py FEATURES.npz SCORES.npy SEED    train, score every row
    /usr/bin/python3 tools/ms_mlp.py --save MODEL.pt FEATURES.npz SEED  train, keep the model
    /usr/bin/python3 tools/ms_mlp.py --serve MODEL.pt                 predict / update over a pipe

Run by tools/ms_baselines.py (the first form) and by the tuning study
(tools/ms_mlp_client.py: the second and third), which extract the features with TVM
(PerStoreFeature(extract_workload=True), 172 per store, as MLPModel does).
--serve is MLPModel inside a tuning run: each request is one JSON line (`op`
predict or update, `segments`, and for update the measured `costs`) followed by
the float32 feature rows; predict answers the scores, update trains
incrementally on the batch as MLPModel's trainer does (5 epochs, Adam, features
divided by the batch's column maximum, labels the batch's best cost / cost). The project's .venv has TVM but no torch (PyPI's torch
wheel carries CUDA); Debian's python3-torch runs here instead, so this file is
MetaSchedule's SegmentSumMLP and its trainer written again against
tvm/s_tir/meta_schedule/cost_model/mlp_model.py (apache-tvm 0.27), with its
defaults: encoder 172 -> 256 -> 256 (ReLU), a sum over each candidate's store
rows, two residual 256-wide ReLU layers, a linear decoder; LambdaRank loss over
batches of 128 candidates (labels: the task's best latency / the latency);
features divided by their column maximum; Adam (lr 7e-4, weight decay 1e-6),
gradient norm clipped at 0.5, 50 epochs, learning rate times 0.8 every 5 epochs;
20 % of the training tasks held out to keep the epoch with the lowest loss.
"""
import json
import sys

import numpy as np
import torch
from torch import nn


class SegmentSumMLP(nn.Module):
    def __init__(self, input_dim=172, hidden=256):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(input_dim, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        self.layer0 = nn.Sequential(nn.Linear(hidden, hidden), nn.ReLU())
        self.layer1 = nn.Sequential(nn.Linear(hidden, hidden), nn.ReLU())
        self.decoder = nn.Linear(hidden, 1)

    def forward(self, segments, features):
        encoded = self.encoder(features)
        index = torch.repeat_interleave(torch.arange(len(segments)), segments)
        summed = torch.zeros(len(segments), encoded.shape[1]).index_add_(0, index, encoded)
        out = self.layer0(summed) + summed
        out = self.layer1(out) + out
        return self.decoder(out).squeeze(-1)


def lambda_rank_loss(pred, label, eps=1e-10):
    """LambdaLoss (NDCG-weighted pairwise logistic loss) over one batch."""
    pred_sorted, order = pred[None, :].sort(descending=True, dim=-1)
    label_sorted, _ = label[None, :].sort(descending=True, dim=-1)
    by_pred = torch.gather(label[None, :], 1, order)
    diffs = by_pred[:, :, None] - by_pred[:, None, :]
    mask = torch.isfinite(diffs) & (diffs > 0)
    positions = torch.arange(1, pred.shape[0] + 1).float()
    discount = torch.log2(1.0 + positions)[None, :]
    max_dcg = torch.sum((torch.pow(2, label_sorted.clamp(min=0)) - 1) / discount, dim=-1).clamp(min=eps)
    gain = (torch.pow(2, by_pred.clamp(min=0)) - 1) / max_dcg[:, None]
    weights = torch.abs(discount[:, :, None] ** -1.0 - discount[:, None, :] ** -1.0) * torch.abs(
        gain[:, :, None] - gain[:, None, :])
    score_diffs = (pred_sorted[:, :, None] - pred_sorted[:, None, :]).clamp(min=-1e8, max=1e8)
    probs = (torch.sigmoid(score_diffs).clamp(min=eps) ** weights).clamp(min=eps)
    return -torch.sum(torch.log2(probs)[mask])


def batches(candidates, offsets, segments, features, labels, shuffle, generator):
    order = torch.randperm(len(candidates), generator=generator) if shuffle else torch.arange(len(candidates))
    for start in range(0, len(order), 128):
        chosen = candidates[order[start:start + 128]]
        rows = torch.cat([torch.arange(offsets[c], offsets[c] + segments[c]) for c in chosen.tolist()])
        yield segments[chosen], features[rows], labels[chosen]


def _normalized(features):
    """Features divided by their column maximum (SegmentDataLoader)."""
    norm = features.max(dim=0).values
    norm[norm == 0] = 1
    return features / norm


def _train_step(model, optimizer, seg, feat, lab):
    optimizer.zero_grad()
    loss = lambda_rank_loss(model(seg, feat), lab)
    loss.backward()
    nn.utils.clip_grad_norm_(model.parameters(), 0.5)
    optimizer.step()


def _adam(model):
    return torch.optim.Adam(model.parameters(), lr=7e-4, weight_decay=1e-6)


def train(data, seed):
    """SegmentSumMLP trained on the rows of `data` marked train: 50 epochs, the
    epoch with the lowest loss on 20 % of the training tasks kept."""
    torch.manual_seed(seed)
    generator = torch.Generator().manual_seed(seed)
    features = _normalized(torch.tensor(data["features"]))
    segments = torch.tensor(data["segments"]).long()
    offsets = torch.cumsum(segments, 0) - segments
    labels = torch.tensor(data["labels"]).float()
    task = data["task"]
    train_tasks = np.unique(task[data["train"]])
    rng = np.random.default_rng(seed)
    valid_tasks = rng.choice(train_tasks, size=len(train_tasks) // 5, replace=False)
    train_rows = torch.tensor(np.flatnonzero(data["train"] & ~np.isin(task, valid_tasks)))
    valid = torch.tensor(np.flatnonzero(np.isin(task, valid_tasks)))
    model = SegmentSumMLP(features.shape[1])
    optimizer = _adam(model)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=5, gamma=0.8)
    best, best_state = float("inf"), None
    for _ in range(50):
        model.train()
        for seg, feat, lab in batches(train_rows, offsets, segments, features, labels, True, generator):
            _train_step(model, optimizer, seg, feat, lab)
        scheduler.step()
        if len(valid) == 0:  # too few training tasks to hold any out: the last epoch is kept
            best_state = model.state_dict()
            continue
        model.eval()
        with torch.no_grad():
            loss = sum(lambda_rank_loss(model(seg, feat), lab).item()
                       for seg, feat, lab in batches(valid, offsets, segments, features, labels, False, generator))
        if loss < best:
            best, best_state = loss, {k: v.clone() for k, v in model.state_dict().items()}
    model.load_state_dict(best_state)
    model.eval()
    return model, (features, segments, offsets, labels, generator)


def score_all(path, out, seed):
    model, (features, segments, offsets, labels, generator) = train(np.load(path), seed)
    everything = torch.arange(len(segments))
    with torch.no_grad():
        scores = torch.cat([model(seg, feat) for seg, feat, _ in
                            batches(everything, offsets, segments, features, labels, False, generator)])
    np.save(out, scores.numpy())


def save(model_path, path, seed):
    model, _ = train(np.load(path), seed)
    torch.save({"state": model.state_dict(), "input_dim": model.encoder[0].in_features}, model_path)


def serve(model_path):
    """Answers requests on stdin / stdout until stdin closes (see the module doc)."""
    saved = torch.load(model_path)
    model = SegmentSumMLP(saved["input_dim"])
    model.load_state_dict(saved["state"])
    torch.manual_seed(0)
    generator = torch.Generator().manual_seed(0)
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    for header in iter(stdin.readline, b""):
        request = json.loads(header)
        segments = torch.tensor(request["segments"]).long()
        rows = int(segments.sum())
        raw = stdin.read(rows * saved["input_dim"] * 4)
        features = _normalized(torch.frombuffer(bytearray(raw), dtype=torch.float32).reshape(rows, -1))
        offsets = torch.cumsum(segments, 0) - segments
        everything = torch.arange(len(segments))
        if request["op"] == "update":
            costs = torch.tensor(request["costs"]).float()
            labels = costs.min() / costs
            optimizer = _adam(model)
            model.train()
            for _ in range(5):
                for seg, feat, lab in batches(everything, offsets, segments, features, labels, True, generator):
                    _train_step(model, optimizer, seg, feat, lab)
            model.eval()
            answer = {"ok": True}
        else:
            with torch.no_grad():
                scores = torch.cat([model(seg, feat) for seg, feat, _ in
                                    batches(everything, offsets, segments, features, segments.float(), False,
                                            generator)])
            answer = {"scores": scores.tolist()}
        stdout.write((json.dumps(answer) + "\n").encode())
        stdout.flush()


if __name__ == "__main__":
    if sys.argv[1] == "--save":
        save(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    elif sys.argv[1] == "--serve":
        serve(sys.argv[2])
    else:
        score_all(sys.argv[1], sys.argv[2], int(sys.argv[3]))
