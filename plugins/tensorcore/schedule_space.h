// The tensor-op kernel configurations CUTLASS's generator draws from, per
// instruction: thread-block tiles of 64/128/256 with 4 or 8 warps (warp tiles
// 32 or 64), k tiles of 64 or 128 bytes, 2 stages for the sm_75 instructions
// and 2-6 for the sm_80 ones, every legal alignment, both iterators, and
// serial split-K of 1, 2 or 4 slices.
#pragma once

#include <cstdint>
#include <vector>

#include "conv_problem.h"
#include "gpu_architecture.h"
#include "intrinsics.h"
#include "kernel_config.h"

namespace ucmoh::tensorcore {

// Every configuration of the space that is valid for the problem on `arch`
// (the plugin's SampleSchedules has no hardware: the default, sm_86), in a
// fixed order.
std::vector<KernelConfig> EnumerateSchedules(const ConvProblem& problem, const TensorCoreIntrinsic& intrinsic,
                                             const GpuArchitecture& arch = DefaultArchitecture());

// `count` distinct configurations (all of them when fewer exist), drawn with
// std::mt19937_64(seed) by a partial Fisher-Yates shuffle that uses only the
// engine's raw output, so the draw is the same with every standard library.
std::vector<KernelConfig> SampleSchedules(const ConvProblem& problem, const TensorCoreIntrinsic& intrinsic,
                                          int64_t count, uint64_t seed,
                                          const GpuArchitecture& arch = DefaultArchitecture());

}  // namespace ucmoh::tensorcore
