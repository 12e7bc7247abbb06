#include "ucmoh/cpu_gemm/latency_timer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <vector>

namespace ucmoh::cpu_gemm {

namespace {

double Seconds(const std::function<void()>& run, int64_t times) {
  const auto start = std::chrono::steady_clock::now();
  for (int64_t i = 0; i < times; ++i) run();
  const auto stop = std::chrono::steady_clock::now();
  return std::chrono::duration<double>(stop - start).count();
}

}  // namespace

LatencyStats SummarizeSamples(std::vector<double> seconds) {
  LatencyStats stats;
  if (seconds.empty()) return stats;
  std::sort(seconds.begin(), seconds.end());
  const size_t n = seconds.size();
  stats.repeats = static_cast<int64_t>(n);
  stats.median_s = n % 2 ? seconds[n / 2] : 0.5 * (seconds[n / 2 - 1] + seconds[n / 2]);
  stats.min_s = seconds.front();
  stats.mean_s = std::accumulate(seconds.begin(), seconds.end(), 0.0) / static_cast<double>(n);
  if (n > 1 && stats.mean_s > 0) {
    double sq = 0;
    for (double s : seconds) sq += (s - stats.mean_s) * (s - stats.mean_s);
    stats.cv = std::sqrt(sq / static_cast<double>(n - 1)) / stats.mean_s;
  }
  return stats;
}

TimingResult TimeProgram(const std::function<void()>& run, const MeasureOptions& options) {
  TimingResult result;
  result.warmup_s = Seconds(run, 1);  // page faults, cold caches, lazy kernel table
  // A short program gets a second look, since the warm-up also paid for the cold start.
  double estimate = result.warmup_s;
  if (estimate < kMinRepeatSeconds) estimate = std::min(estimate, Seconds(run, 1));
  if (estimate < kMinRepeatSeconds) {
    result.runs_per_repeat = static_cast<int64_t>(std::ceil(kMinRepeatSeconds / std::max(estimate, 1e-7)));
  }
  const int min_repeats = std::max(1, options.min_repeats);
  std::vector<double> samples;
  double timed = 0;
  while (static_cast<int>(samples.size()) < kMaxRepeats &&
         (static_cast<int>(samples.size()) < min_repeats || timed < options.min_repeat_seconds)) {
    const double seconds = Seconds(run, result.runs_per_repeat);
    timed += seconds;
    samples.push_back(seconds / static_cast<double>(result.runs_per_repeat));
  }
  result.stats = SummarizeSamples(std::move(samples));
  return result;
}

}  // namespace ucmoh::cpu_gemm
