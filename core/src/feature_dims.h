// Column indices of the generic feature dimensions. Private to core: the
// public contract is FeatureSchema() (names, descriptions) and kFeatureDim.
#pragma once

#include <algorithm>
#include <cmath>

namespace ucmoh {

// Counts and sizes enter the tokens as log2(1 + x), x clamped at 0.
inline float Log2p(double x) { return static_cast<float>(std::log2(1.0 + std::max(0.0, x))); }

}  // namespace ucmoh

namespace ucmoh::dims {

enum : int {
  // Token kind, one-hot.
  kTokTarget, kTokIntrinsic, kTokLoad, kTokCompute, kTokStore,
  // Loop context of a stage: log2(1 + product of enclosing extents) per kind.
  kLoopSerial, kLoopParallel, kLoopVectorized, kLoopUnrolled, kLoopGpuGrid,
  kLoopGpuBlock, kLoopGpuWarp, kLoopGpuThread, kLoopPipelined,
  kLoopDepth, kLoopIterations,
  // Load and store stages.
  kMemBytes, kMemUniqueBytes, kMemTotalBytes, kMemStride, kMemVectorBytes, kMemReuse,
  kSrcGlobal, kSrcShared, kSrcCache, kSrcRegister,
  kDstGlobal, kDstShared, kDstCache, kDstRegister,
  // Compute stages (the last two also on the intrinsic token, for the program).
  kCallsPerExec, kTotalCalls, kTotalFlops, kArithIntensity,
  // Target token: hardware parameters.
  kHwIsGpu, kHwIsCpu, kHwCores, kHwVectorBytes, kHwVectorRegisters, kHwCacheLine,
  kHwL1, kHwL2, kHwL3, kHwWarpSize, kHwMaxThreadsPerBlock, kHwSharedPerBlock,
  kHwRegistersPerSm, kHwClockGhz,
  // Intrinsic token.
  kInM, kInN, kInK, kInOpsPerCall, kInInputBits, kInAccumBits, kInIntegerInput, kInFloatInput,
  // Loop nest (schema 3): where a load/store reuses its data and how much it
  // touches in between (from Stage::loop_stride_bytes), and every stage's
  // innermost loop and straight-line unrolled body.
  kReuseLoopExtent, kReuseDistanceIters, kReuseDistanceBytes, kFootprintPerThread, kInnerStrideBytes,
  kStridesKnown, kInnerLoopExtent, kUnrolledBody,
  kGenericEnd
};

}  // namespace ucmoh::dims
