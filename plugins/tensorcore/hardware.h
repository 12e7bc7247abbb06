// The GPU the public CUTLASS data was measured on: an NVIDIA GeForce RTX 3070
// (GA104, Ampere, compute capability 8.6). docs/tensorcore.md gives the sources.
#pragma once

#include <cstdint>

#include "ucmoh/status.h"
#include "ucmoh/target.h"

namespace ucmoh::tensorcore {

// The per-SM and per-block limits are per compute capability
// (gpu_architecture.h); these hold on every GPU the plugin models.
constexpr int64_t kWarpSize = 32;
constexpr int64_t kMaxVectorBytes = 16;                 // widest global access (LDG.128 / cp.async 16)

// The RTX 3070: what the CUTLASS importer records as every row's hardware.
TargetInfo TensorCoreTarget();


}  // namespace ucmoh::tensorcore
