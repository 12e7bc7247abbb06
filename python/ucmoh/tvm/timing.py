"""The timing protocol every MetaSchedule measurement of the project follows
(docs/data.md): MetaSchedule's time_evaluator with `NUMBER` runs per repeat,
raised until a repeat lasts `MIN_REPEAT_MS`, `REPEAT` repeats whose mean is the
latency, no cache flush, one thread. The collector (ucmoh.tvm.collect) and the
runtime-only timer of exported candidates (ucmoh.tvm.run_exported) both take
their defaults from here, every reader of run_secs its `latency`, and every
counter of failed builds and runs its `first_error_line`. Imports only numpy: a
host with only the TVM runtime reads it too."""
import numpy as np

NUMBER = 1
REPEAT = 3
MIN_REPEAT_MS = 20


def latency(run_secs):
    """The latency of one measured candidate: the mean of its repeats' seconds."""
    return float(np.mean([float(s) for s in run_secs]))


def first_error_line(message):
    """The line that says why: the raised error's own line (TVM's builder and
    runner wrap it in a traceback under 'LocalBuilder: An exception occurred';
    a worker that died, e.g. of an LLVM abort, says 'Subprocess terminated')."""
    lines = [line.strip() for line in str(message).splitlines() if line.strip()]
    for line in lines:
        if line.startswith(("tvm.error.", "RuntimeError:", "ValueError:", "TimeoutError", "InternalError:")):
            return line.split(" is_scalable")[0][:120]
    for line in lines:
        if not line.startswith(("Traceback", "File ", "^", "LocalBuilder:", "LocalRunner:")):
            return line[:120]
    return lines[0][:120] if lines else "(no message)"
