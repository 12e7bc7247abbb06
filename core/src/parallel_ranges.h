// Runs fn(begin, end) over contiguous slices of [0, count) on several threads
// (internal to core, which does not link LibTorch's thread pool). For work
// whose items are independent and cost microseconds each, like featurizing
// records: below `min_per_thread` items a slice is not worth a thread.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <thread>
#include <vector>

namespace ucmoh {

// The threads core may use: $OMP_NUM_THREADS when set (the count LibTorch,
// oneDNN and XGBoost in the same process obey), else every core.
inline size_t CoreThreads() {
  static const size_t threads = [] {
    const char* env = std::getenv("OMP_NUM_THREADS");
    const long wanted = env ? std::strtol(env, nullptr, 10) : 0;
    return wanted > 0 ? static_cast<size_t>(wanted) : std::max(1u, std::thread::hardware_concurrency());
  }();
  return threads;
}

template <class Fn>
void ParallelRanges(size_t count, size_t min_per_thread, Fn fn) {
  const size_t threads = std::clamp<size_t>(count / std::max<size_t>(1, min_per_thread), 1, CoreThreads());
  if (threads == 1) {
    fn(size_t{0}, count);
    return;
  }
  std::vector<std::thread> workers;
  const size_t slice = (count + threads - 1) / threads;
  for (size_t begin = slice; begin < count; begin += slice)
    workers.emplace_back(fn, begin, std::min(count, begin + slice));
  fn(size_t{0}, std::min(count, slice));  // the calling thread takes the first slice
  for (auto& worker : workers) worker.join();
}

}  // namespace ucmoh
