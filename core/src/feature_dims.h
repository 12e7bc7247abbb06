// Column indices of the generic feature dimensions. Private to core: the
// public contract is FeatureSchema() (names, descriptions) and kFeatureDim.
#pragma once

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
  kGenericEnd
};

}  // namespace ucmoh::dims
