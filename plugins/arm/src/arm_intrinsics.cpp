#include "ucmoh/arm/arm_plugin.h"

namespace ucmoh::arm {

namespace {

// NEON code may use all 32 vector registers v0-v31.
constexpr int64_t kNeonRegisters = 32;

}  // namespace

std::vector<cpu_gemm::CpuGemmIntrinsic> ArmIntrinsics() {
  return {
      // n = 4: four 32-bit accumulator lanes of a 128-bit register.
      cpu_gemm::MakeCpuGemmIntrinsic("arm.neon", "fmla", 4, 1, "f32", "f32", kNeonRegisters,
           "fp32 fused multiply-add on 128-bit NEON registers (vfmaq_f32)"),
      cpu_gemm::MakeCpuGemmIntrinsic("arm.sdot", "sdot", 4, 4, "s8", "s32", kNeonRegisters,
           "s8 dot product of 4-element groups into 4 s32 lanes (vdotq_s32, Armv8.2 DotProd)"),
  };
}

}  // namespace ucmoh::arm
