#include "hardware.h"

#include "gpu_architecture.h"

namespace ucmoh::tensorcore {

TargetInfo TensorCoreTarget() {
  TargetInfo info;
  info.name = "tensorcore";
  info.description =
      "NVIDIA Ampere tensor cores (mma.sync) driven by CUTLASS implicit-GEMM conv2d kernels";
  HardwareParams& hw = info.hardware;
  hw.model = "NVIDIA GeForce RTX 3070 (GA104, Ampere, sm_86)";
  hw.is_gpu = true;
  hw.cores = 46;                          // SMs
  hw.vector_bytes = kMaxVectorBytes;
  hw.vector_registers = 0;                // no architectural SIMD register file on a GPU
  hw.cache_line_bytes = 128;
  hw.l1_bytes = 128 * 1024;               // combined L1 / shared memory per SM
  hw.l2_bytes = 4 * 1024 * 1024;
  hw.l3_bytes = 0;
  hw.warp_size = kWarpSize;
  const GpuArchitecture& sm86 = DefaultArchitecture();
  hw.max_threads_per_block = sm86.max_threads_per_block;
  hw.shared_bytes_per_block = sm86.shared_bytes_per_block;
  hw.registers_per_sm = sm86.registers_per_sm;
  hw.clock_ghz = 1.725;                   // boost clock
  hw.flags = {"sm_86", "mma.sync", "ldmatrix", "cp.async"};
  return info;
}

}  // namespace ucmoh::tensorcore
