// Times one planned (problem, kernel) pair on the GPU under the CUTLASS
// profiler's protocol: the output is poisoned, the kernel runs once and is
// compared with a direct-convolution reference (the inputs are small
// integers, so the comparison is exact but for f16 rounding), then warm-up
// launches, then `repeats` timed batches of back-to-back launches between two
// CUDA events, each batch long enough to time. The L2 is not flushed between
// launches (as in the profiler). Inputs and reference are kept while
// consecutive measurements share a problem and input type.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "measurement_plan.h"
#include "ucmoh/record.h"

namespace ucmoh::tensorcore::measure {

struct TimingProtocol {
  int warmup = 10;              // launches before timing (the profiler's --warmup-iterations)
  int repeats = 3;              // timed batches; the latency is their median
  double min_batch_ms = 2.0;    // a batch runs at least this long
  int min_iterations = 5;       // and at least this many launches
  int max_iterations = 1000;
};

struct Measurement {
  bool ran = false;
  std::string failure;          // why not, when !ran: "incorrect: ...", "launch: ..."
  LatencyStats latency;         // seconds per launch
  int64_t iterations = 0;       // launches per timed batch
};

class ConvMeasurer {
 public:
  ConvMeasurer();
  ~ConvMeasurer();
  ConvMeasurer(const ConvMeasurer&) = delete;
  ConvMeasurer& operator=(const ConvMeasurer&) = delete;

  // A kernel that fails (not compiled, does not launch, disagrees with the
  // reference) is a Measurement with a failure; a fault that leaves the CUDA
  // context unusable (an illegal address) is an error Status.
  Expected<Measurement> Measure(const PlannedMeasurement& planned, const TimingProtocol& protocol);

 private:
  struct Buffers;
  std::unique_ptr<Buffers> buffers_;
};

}  // namespace ucmoh::tensorcore::measure
