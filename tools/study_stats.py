"""What the tuning-study summaries share (tools/plot-tvm-study, tools/plot-tvm-network-study)."""
import statistics


def best_so_far(latencies):
    """The best latency after each trial (failed trials, None, keep the best)."""
    out, best = [], float("inf")
    for x in latencies:
        best = min(best, x) if x else best
        out.append(best)
    return out


def trials_to_reach(curve, target):
    """1-based trial at which `curve` first reaches `target` (None: never)."""
    return next((i + 1 for i, v in enumerate(curve) if v <= target * (1 + 1e-9)), None)


def mean_std(values, fmt="{:.3f}"):
    if not values:
        return "–"
    if len(values) == 1:
        return fmt.format(values[0])
    return f"{fmt.format(statistics.mean(values))} ± {fmt.format(statistics.stdev(values))}"
