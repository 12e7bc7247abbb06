"""The registry's ranking metrics (core/src/metrics.cpp) for the study scripts,
in the standard library only, so they run under any python3: PCA over pairs of
distinct latency (tied scores half right), top-1 = best latency / latency of
the top-scored program (ties against the model). Both per task. And the
operator kind the studies group MetaSchedule tasks by."""
import re


def pca(latency, score):
    correct = pairs = 0.0
    for i in range(len(latency)):
        for j in range(len(latency)):
            if latency[i] < latency[j]:
                pairs += 1
                correct += 1.0 if score[i] > score[j] else 0.5 if score[i] == score[j] else 0.0
    return correct / pairs if pairs else None


def top1(latency, score):
    best = max(score)
    chosen = max(latency[i] for i in range(len(score)) if score[i] == best)  # ties against the model
    return min(latency) / chosen


def operator_kind(task):
    """The op of a task key `network.op.shape...`, '.dw' for grouped or depthwise
    convolutions (a `g<groups>` in the shape); "all" for keys of another form."""
    parts = task.split(".")
    if len(parts) < 3:
        return "all"
    grouped = parts[1].startswith("conv") and re.search(r"g\d+", parts[2])
    return parts[1] + (".dw" if grouped else "")
