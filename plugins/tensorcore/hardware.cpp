#include "hardware.h"

#include <algorithm>

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
  hw.max_threads_per_block = kMaxThreadsPerBlock;
  hw.shared_bytes_per_block = kSharedBytesPerBlock;
  hw.registers_per_sm = kRegistersPerSm;
  hw.clock_ghz = 1.725;                   // boost clock
  hw.flags = {"sm_86", "mma.sync", "ldmatrix", "cp.async"};
  return info;
}

Status CheckModelledGpu(const HardwareParams& hardware) {
  const bool sm86 = std::find(hardware.flags.begin(), hardware.flags.end(), "sm_86") != hardware.flags.end();
  if (hardware.is_gpu && sm86) return Status::Ok();
  return Status::InvalidArgument("tensorcore models sm_86 GPUs (RTX 30-series limits), not the record's hardware '" +
                                 hardware.model + "' (no 'sm_86' flag)");
}

}  // namespace ucmoh::tensorcore
