// Target "arm": a Neoverse-N1-class CPU (AWS Graviton2) with the NEON fp32
// FMLA and the SDOT int8 dot-product intrinsics, and the shared blocked-GEMM
// schedule family under NEON's 32-register budget. It does not measure (the
// base class's CanMeasure says so): there is no aarch64 host yet.
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
