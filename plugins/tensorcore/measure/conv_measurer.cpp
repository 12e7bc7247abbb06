#include "conv_measurer.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "device_tensors.h"
#include "kernel_table.h"

namespace ucmoh::tensorcore::measure {

namespace {

ConvShape ShapeOf(const ConvProblem& p) {
  auto i = [](int64_t v) { return static_cast<int>(v); };
  return ConvShape{i(p.n),      i(p.h),      i(p.w),        i(p.c),        i(p.k),
                   i(p.r),      i(p.s),      i(p.p),        i(p.q),        i(p.pad_h),
                   i(p.pad_w),  i(p.stride_h), i(p.stride_w), i(p.dilation_h), i(p.dilation_w)};
}

ElementType TypeOf(const std::string& name) {
  if (name == "f16") return ElementType::kF16;
  if (name == "s8") return ElementType::kS8;
  if (name == "f32") return ElementType::kF32;
  return ElementType::kS32;
}

std::string CudaError(int error) { return cudaGetErrorString(static_cast<cudaError_t>(error)); }

// A sticky error leaves the context unusable: every later call fails too.
bool ContextLost(int error) {
  switch (static_cast<cudaError_t>(error)) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorMisalignedAddress:
    case cudaErrorIllegalInstruction:
    case cudaErrorHardwareStackError:
    case cudaErrorInvalidPc:
      return true;
    default:
      return false;
  }
}

LatencyStats StatsOf(std::vector<double> seconds) {
  std::sort(seconds.begin(), seconds.end());
  LatencyStats stats;
  const size_t n = seconds.size();
  stats.median_s = n % 2 ? seconds[n / 2] : (seconds[n / 2 - 1] + seconds[n / 2]) / 2;
  double sum = 0, squares = 0;
  for (double s : seconds) sum += s;
  stats.mean_s = sum / n;
  for (double s : seconds) squares += (s - stats.mean_s) * (s - stats.mean_s);
  stats.min_s = seconds.front();
  stats.cv = n > 1 ? std::sqrt(squares / (n - 1)) / stats.mean_s : 0;
  stats.repeats = static_cast<int64_t>(n);
  return stats;
}

}  // namespace

struct ConvMeasurer::Buffers {
  std::string key;  // problem and input type of what the buffers hold
  void* x = nullptr;
  void* w = nullptr;
  void* y = nullptr;
  void* reference = nullptr;
  int64_t outputs = 0;
  cudaEvent_t start = nullptr, stop = nullptr;

  void Free() {
    for (void* p : {x, w, y, reference}) cudaFree(p);
    x = w = y = reference = nullptr;
    key.clear();
  }
};

ConvMeasurer::ConvMeasurer() : buffers_(std::make_unique<Buffers>()) {
  cudaEventCreate(&buffers_->start);
  cudaEventCreate(&buffers_->stop);
}

ConvMeasurer::~ConvMeasurer() {
  buffers_->Free();
  cudaEventDestroy(buffers_->start);
  cudaEventDestroy(buffers_->stop);
}

namespace {

// Allocates and fills x and w, and computes the reference. 0 or a cudaError_t.
int Prepare(const ConvProblem& problem, void** x, void** w, void** y, void** reference, int64_t* outputs) {
  const ConvShape shape = ShapeOf(problem);
  const ElementType input = TypeOf(problem.in_type);
  const int64_t x_count = static_cast<int64_t>(shape.n) * shape.h * shape.w * shape.c;
  const int64_t w_count = static_cast<int64_t>(shape.k) * shape.r * shape.s * shape.c;
  *outputs = static_cast<int64_t>(shape.gemm_m()) * shape.k;
  int error = 0;
  const std::pair<void**, int64_t> sizes[] = {{x, x_count * ElementBytes(input)},
                                              {w, w_count * ElementBytes(input)},
                                              {y, *outputs * 4},  // the widest output type
                                              {reference, *outputs * 4}};
  for (const auto& [pointer, bytes] : sizes)
    if ((error = cudaMalloc(pointer, bytes)) != 0) return error;
  if ((error = FillSmallIntegers(*x, x_count, input, 1)) != 0) return error;
  if ((error = FillSmallIntegers(*w, w_count, input, 2)) != 0) return error;
  return ReferenceConv(shape, *x, *w, input, *reference);
}

}  // namespace

Expected<Measurement> ConvMeasurer::Measure(const PlannedMeasurement& planned, const TimingProtocol& protocol) {
  Buffers& b = *buffers_;
  const ConvProblem& problem = planned.problem;
  Measurement result;
  const KernelLauncher* kernel = FindCompiledKernel(planned.kernel->id);
  if (!kernel) {
    result.failure = "not compiled: " + planned.kernel->id;
    return result;
  }
  auto fatal = [&](const std::string& what, int error) -> Expected<Measurement> {
    return Status::Internal(planned.task.key + " " + planned.kernel->id + ": " + what + ": " + CudaError(error));
  };
  const std::string key = ShapeKey(problem) + "/" + problem.in_type;
  if (key != b.key) {
    b.Free();
    if (const int error = Prepare(problem, &b.x, &b.w, &b.y, &b.reference, &b.outputs)) return fatal("prepare", error);
    b.key = key;
  }
  const ConvShape shape = ShapeOf(problem);
  if (const int error = kernel->prepare()) {
    result.failure = "launch: " + CudaError(error);
    return result;
  }
  // Verify: poisoned output (0xff bytes: NaN, or -1), one launch, compare.
  cudaMemset(b.y, 0xff, b.outputs * 4);
  int error = kernel->launch(shape, b.x, b.w, b.y);
  if (error == 0) error = cudaDeviceSynchronize();
  if (error != 0) {
    if (ContextLost(error)) return fatal("launch", error);
    result.failure = "launch: " + CudaError(error);
    return result;
  }
  int64_t mismatches = 0;
  if ((error = CountMismatches(b.y, TypeOf(problem.out_type), b.reference, TypeOf(problem.in_type), b.outputs,
                               &mismatches)) != 0)
    return fatal("compare", error);
  if (mismatches > 0) {
    result.failure = "incorrect: " + std::to_string(mismatches) + " of " + std::to_string(b.outputs) +
                     " outputs differ from the reference";
    return result;
  }
  // Warm up, and estimate one launch to size the timed batches.
  cudaEventRecord(b.start);
  for (int i = 0; i < protocol.warmup; ++i) kernel->launch(shape, b.x, b.w, b.y);
  cudaEventRecord(b.stop);
  if ((error = cudaEventSynchronize(b.stop)) != 0) return fatal("warm-up", error);
  float warm_ms = 0;
  cudaEventElapsedTime(&warm_ms, b.start, b.stop);
  const double estimate_ms = std::max(1e-4, static_cast<double>(warm_ms) / std::max(1, protocol.warmup));
  const int iterations = std::clamp(static_cast<int>(std::ceil(protocol.min_batch_ms / estimate_ms)),
                                    protocol.min_iterations, protocol.max_iterations);
  std::vector<double> seconds;
  for (int repeat = 0; repeat < protocol.repeats; ++repeat) {
    cudaEventRecord(b.start);
    for (int i = 0; i < iterations; ++i) kernel->launch(shape, b.x, b.w, b.y);
    cudaEventRecord(b.stop);
    if ((error = cudaEventSynchronize(b.stop)) != 0) return fatal("timing", error);
    float ms = 0;
    cudaEventElapsedTime(&ms, b.start, b.stop);
    seconds.push_back(ms / 1000.0 / iterations);
  }
  result.ran = true;
  result.latency = StatsOf(seconds);
  result.iterations = iterations;
  return result;
}

}  // namespace ucmoh::tensorcore::measure
