// One CUTLASS conv2d kernel configuration: the schedule of a program.
// Schedule keys: cta_m cta_n cta_k stages warps_m warps_n warps_k alignment
// split_k_slices (ints), iterator ("optimized" | "analytic"), and optionally
// layout ("nhwc") and operation (the CUTLASS kernel name, informational).
#pragma once

#include <cstdint>
#include <string>

#include "conv_kind.h"
#include "intrinsics.h"
#include "ucmoh/params.h"
#include "ucmoh/status.h"

namespace ucmoh::tensorcore {

struct KernelConfig {
  int64_t cta_m = 128, cta_n = 128, cta_k = 32;  // thread-block tile of the implicit GEMM
  int64_t stages = 2;                            // software-pipeline depth (shared-memory buffers)
  int64_t warps_m = 2, warps_n = 2, warps_k = 1;
  int64_t alignment = 8;                         // elements per global access of A and B
  int64_t split_k_slices = 1;                    // serial split-K: blocks along the reduction
  bool optimized_iterator = true;
  std::string layout = "nhwc";

  int64_t warp_m() const { return cta_m / warps_m; }
  int64_t warp_n() const { return cta_n / warps_n; }
  int64_t warp_k() const { return cta_k / warps_k; }
  int64_t warps() const { return warps_m * warps_n * warps_k; }
  std::string iterator() const { return optimized_iterator ? "optimized" : "analytic"; }
};

// Every integer of a configuration lies in [1, kMaxKernelValue]. Real
// kernels use at most 256 (tiles) and tens (stages, warps, split-K); the
// bound keeps a product of three of them (warps(), tile areas) far from
// int64 overflow whatever a file says.
constexpr int64_t kMaxKernelValue = int64_t{1} << 16;
inline bool KernelValueInRange(int64_t value) { return value >= 1 && value <= kMaxKernelValue; }

// Reads the keys; checks only that they are present, typed and in range.
// ValidateProgram (program.h) checks them against the intrinsic and problem.
Expected<KernelConfig> ParseKernelConfig(const ParamMap& schedule);

// The schedule ParamMap of a configuration, with the CUTLASS operation name
// of its kernel for the conv kind (operation_name.h).
ParamMap ScheduleParams(const KernelConfig& config, const TensorCoreIntrinsic& intrinsic, ConvKind kind);

}  // namespace ucmoh::tensorcore
