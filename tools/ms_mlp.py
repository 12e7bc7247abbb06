"""MetaSchedule's MLPModel, trained offline on PerStoreFeature (baseline (c) of issue 36).

    /usr/bin/python3 tools/ms_mlp.py FEATURES.npz SCORES.npy SEED

Run by tools/ms_baselines.py, which extracts the features with TVM
(PerStoreFeature(extract_workload=True), 172 per store, as MLPModel does) and
reads the scores back. The project's .venv has TVM but no torch (PyPI's torch
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


def main(path, out, seed):
    torch.manual_seed(seed)
    generator = torch.Generator().manual_seed(seed)
    data = np.load(path)
    features = torch.tensor(data["features"])
    norm = features.max(dim=0).values
    norm[norm == 0] = 1
    features = features / norm
    segments = torch.tensor(data["segments"]).long()
    offsets = torch.cumsum(segments, 0) - segments
    labels = torch.tensor(data["labels"]).float()
    task = data["task"]
    train_tasks = np.unique(task[data["train"]])
    rng = np.random.default_rng(seed)
    valid_tasks = rng.choice(train_tasks, size=len(train_tasks) // 5, replace=False)
    train = torch.tensor(np.flatnonzero(data["train"] & ~np.isin(task, valid_tasks)))
    valid = torch.tensor(np.flatnonzero(np.isin(task, valid_tasks)))
    model = SegmentSumMLP(features.shape[1])
    optimizer = torch.optim.Adam(model.parameters(), lr=7e-4, weight_decay=1e-6)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=5, gamma=0.8)
    best, best_state = float("inf"), None
    for _ in range(50):
        model.train()
        for seg, feat, lab in batches(train, offsets, segments, features, labels, True, generator):
            optimizer.zero_grad()
            loss = lambda_rank_loss(model(seg, feat), lab)
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 0.5)
            optimizer.step()
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
    everything = torch.arange(len(segments))
    with torch.no_grad():
        scores = torch.cat([model(seg, feat) for seg, feat, _ in
                            batches(everything, offsets, segments, features, labels, False, generator)])
    np.save(out, scores.numpy())


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]))
