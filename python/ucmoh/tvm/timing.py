"""The timing protocol every MetaSchedule measurement of the project follows
(docs/data.md): MetaSchedule's time_evaluator with `NUMBER` runs per repeat,
raised until a repeat lasts `MIN_REPEAT_MS`, `REPEAT` repeats whose mean is the
latency, no cache flush, one thread. The collector (ucmoh.tvm.collect) and the
runtime-only timer of exported candidates (ucmoh.tvm.run_exported) both take
their defaults from here. Imports nothing: a host with only the TVM runtime
reads it too."""
NUMBER = 1
REPEAT = 3
MIN_REPEAT_MS = 20
