// What one thread block of a kernel configuration occupies on an SM, and how
// many blocks fit at once. Registers are an estimate (the compiler decides);
// docs/tensorcore.md gives the formula.
#pragma once

#include <cstdint>

#include "gpu_architecture.h"
#include "intrinsics.h"
#include "kernel_config.h"

namespace ucmoh::tensorcore {

struct KernelResources {
  int64_t threads = 0;
  int64_t shared_bytes = 0;           // all pipeline stages of the A and B tiles
  int64_t registers_per_thread = 0;   // estimate, rounded up to the allocation unit of 8
  int64_t resident_blocks = 0;        // per SM; 0 = does not fit
};

// Blocks of that size that fit on one SM of `arch` at once (0 = none).
int64_t ResidentBlocks(int64_t threads, int64_t shared_bytes, int64_t registers_per_thread,
                       const GpuArchitecture& arch);

KernelResources EstimateResources(const KernelConfig& config, const TensorCoreIntrinsic& intrinsic,
                                  const GpuArchitecture& arch);

}  // namespace ucmoh::tensorcore
