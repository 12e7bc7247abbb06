// The GPU the public CUTLASS data was measured on: an NVIDIA GeForce RTX 3070
// (GA104, Ampere, compute capability 8.6). docs/tensorcore.md gives the sources.
#pragma once

#include <cstdint>

#include "ucmoh/status.h"
#include "ucmoh/target.h"

namespace ucmoh::tensorcore {

// Per-SM limits that HardwareParams has no field for; the occupancy estimate needs them.
constexpr int64_t kSharedBytesPerSm = 100 * 1024;       // CC 8.6 maximum shared memory per SM
constexpr int64_t kSharedBytesPerBlock = 99 * 1024;     // CC 8.6 opt-in maximum per block
constexpr int64_t kSharedReservedPerBlock = 1024;       // the driver reserves 1 KiB per resident block
constexpr int64_t kMaxThreadsPerSm = 1536;
constexpr int64_t kMaxBlocksPerSm = 16;
constexpr int64_t kMaxThreadsPerBlock = 1024;
constexpr int64_t kRegistersPerSm = 65536;
constexpr int64_t kMaxRegistersPerThread = 255;
constexpr int64_t kWarpSize = 32;
constexpr int64_t kMaxVectorBytes = 16;                 // widest global access (LDG.128 / cp.async 16)

// The RTX 3070: what the CUTLASS importer records as every row's hardware.
TargetInfo TensorCoreTarget();

// Ok for a GPU whose flags include "sm_86" (the limits above are that
// compute capability's); InvalidArgument naming the hardware otherwise.
Status CheckModelledGpu(const HardwareParams& hardware);

}  // namespace ucmoh::tensorcore
