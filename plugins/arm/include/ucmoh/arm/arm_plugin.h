// Target "arm": a Neoverse-N1-class CPU (AWS Graviton2, fixed published
// numbers) with the NEON fp32 FMLA and the SDOT int8 dot-product intrinsics,
// and the shared blocked-GEMM schedule family under NEON's 32-register budget.
// It samples, lowers and featurizes programs only: it has no micro-kernels,
// no measurer (the base class's CanMeasure answers Unsupported) and no
// importer, and the project has no arm records.
#pragma once

#include <vector>

#include "ucmoh/cpu_gemm/cpu_gemm_plugin.h"

namespace ucmoh::arm {

// arm.neon and arm.sdot.
std::vector<cpu_gemm::CpuGemmIntrinsic> ArmIntrinsics();

class ArmPlugin : public cpu_gemm::CpuGemmPlugin {
 public:
  ArmPlugin();
};

}  // namespace ucmoh::arm
