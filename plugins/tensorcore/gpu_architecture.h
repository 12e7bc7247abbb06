// The GPUs the tensorcore plugin models: per compute capability, the per-SM
// and per-block limits that decide whether a CUTLASS kernel launches and how
// many of its blocks are resident (occupancy), and which mma intrinsics the
// architecture has. A GPU the table does not list is refused by name.
//
// Sources: NVIDIA CUDA C++ Programming Guide, "Technical Specifications per
// Compute Capability" (threads, blocks, registers and shared memory per SM and
// per block; the 1 KiB the runtime reserves per block from compute capability
// 8.0, cudaDevAttrReservedSharedMemoryPerBlock); PTX ISA, "Warp-level matrix
// multiply-accumulate instructions" (mma.m16n8k8 f16 and mma.m8n8k16 s8 need
// sm_75; m16n8k16 f16 and m16n8k32 s8 need sm_80). docs/tensorcore.md.
#pragma once

#include <cstdint>
#include <vector>

#include "intrinsics.h"
#include "ucmoh/status.h"
#include "ucmoh/target.h"

namespace ucmoh::tensorcore {

struct GpuArchitecture {
  int compute_capability = 0;  // 75, 80, 86, 89, 90
  const char* flag = "";       // the HardwareParams flag naming it: "sm_86"
  const char* family = "";     // "Turing", "Ampere", "Ada", "Hopper"
  int64_t shared_bytes_per_sm = 0;
  int64_t shared_bytes_per_block = 0;     // the opt-in maximum of one block
  int64_t shared_reserved_per_block = 0;  // taken by the runtime per resident block
  int64_t max_threads_per_sm = 0;
  int64_t max_blocks_per_sm = 0;
  int64_t registers_per_sm = 65536;
  int64_t max_registers_per_thread = 255;
  int64_t max_threads_per_block = 1024;
};

// sm_75, sm_80, sm_86, sm_89, sm_90, in that order.
const std::vector<GpuArchitecture>& KnownArchitectures();

// sm_86: the GPU of the public CUTLASS data (an RTX 3070), and the one the
// plugin samples schedules for when no hardware is given.
const GpuArchitecture& DefaultArchitecture();

// The architecture `hardware` names by its "sm_XX" flag. A CPU, a GPU with no
// such flag, or one the table does not list is InvalidArgument naming it.
Expected<const GpuArchitecture*> ArchitectureOf(const HardwareParams& hardware);

// Ok when the architecture has the intrinsic's mma instruction.
Status CheckIntrinsicRuns(const TensorCoreIntrinsic& intrinsic, const GpuArchitecture& arch);

}  // namespace ucmoh::tensorcore
