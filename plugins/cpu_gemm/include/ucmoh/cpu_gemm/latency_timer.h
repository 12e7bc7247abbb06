// Times a program the way the dataset needs (docs/data.md): one warm-up run,
// then timed repeats until both at least `min_repeats` repeats and
// `min_repeat_seconds` of timed work are done; a program much shorter than a
// millisecond runs several times per repeat so each repeat is long enough for
// the clock. The median ranks programs; the coefficient of variation says how
// much to trust it.
#pragma once

#include <functional>

#include "ucmoh/plugin.h"
#include "ucmoh/record.h"

namespace ucmoh::cpu_gemm {

struct TimingResult {
  LatencyStats stats;    // per-run latency: median, mean, min, cv over repeats
  int64_t runs_per_repeat = 1;
  double warmup_s = 0;
};

// Repeats stop at kMaxRepeats even when the time minimum is not reached.
constexpr int kMaxRepeats = 200;
// The shortest timed repeat: runs shorter than this are batched.
constexpr double kMinRepeatSeconds = 1e-3;

TimingResult TimeProgram(const std::function<void()>& run, const MeasureOptions& options);

// Median, mean, min and cv (sample stddev / mean) of positive samples.
LatencyStats SummarizeSamples(std::vector<double> seconds);

}  // namespace ucmoh::cpu_gemm
