#include <utility>

#include "ucmoh/arm/arm_plugin.h"

namespace ucmoh::arm {

namespace {

// NEON code may use all 32 vector registers v0-v31.
constexpr int64_t kNeonRegisters = 32;

cpu_gemm::CpuGemmIntrinsic Make(std::string name, std::string instruction, int64_t k,
                                std::string input, std::string accum, std::string description) {
  cpu_gemm::CpuGemmIntrinsic intrinsic;
  IntrinsicInfo& info = intrinsic.info;
  info.name = std::move(name);
  info.instruction = std::move(instruction);
  info.m = 1;
  info.n = 4;  // four 32-bit accumulator lanes of a 128-bit register
  info.k = k;
  info.input_type = std::move(input);
  info.accum_type = std::move(accum);
  info.ops_per_call = static_cast<double>(2 * info.m * info.n * info.k);
  info.description = std::move(description);
  intrinsic.vector_registers = kNeonRegisters;
  return intrinsic;
}

}  // namespace

std::vector<cpu_gemm::CpuGemmIntrinsic> ArmIntrinsics() {
  return {
      Make("arm.neon", "fmla", 1, "f32", "f32",
           "fp32 fused multiply-add on 128-bit NEON registers (vfmaq_f32)"),
      Make("arm.sdot", "sdot", 4, "s8", "s32",
           "s8 dot product of 4-element groups into 4 s32 lanes (vdotq_s32, Armv8.2 DotProd)"),
  };
}

}  // namespace ucmoh::arm
