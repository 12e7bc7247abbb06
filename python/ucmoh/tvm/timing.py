"""The timing protocol every MetaSchedule measurement of the project follows
(docs/data.md): MetaSchedule's time_evaluator with `NUMBER` runs per repeat,
raised until a repeat lasts `MIN_REPEAT_MS`, `REPEAT` repeats whose mean is the
latency, no cache flush, one thread. The collector (ucmoh.tvm.collect) and the
runtime-only timer of exported candidates (ucmoh.tvm.run_exported) both take
their defaults from here, and every reader of run_secs its `latency`. Imports
only numpy: a host with only the TVM runtime reads it too."""
import numpy as np

NUMBER = 1
REPEAT = 3
MIN_REPEAT_MS = 20


def latency(run_secs):
    """The latency of one measured candidate: the mean of its repeats' seconds."""
    return float(np.mean([float(s) for s in run_secs]))
