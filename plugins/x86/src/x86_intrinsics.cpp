#include "ucmoh/x86/x86_intrinsics.h"

namespace ucmoh::x86 {

using cpu_gemm::MakeCpuGemmIntrinsic;

std::vector<cpu_gemm::CpuGemmIntrinsic> X86Intrinsics() {
  // AVX2 code may use ymm0-15 only; EVEX (AVX-512) code has zmm0-31.
  return {
      MakeCpuGemmIntrinsic("x86.avx2", "vfmadd231ps", 8, 1, "f32", "f32", 16,
           "fp32 fused multiply-add on 256-bit ymm registers (AVX2 + FMA)"),
      MakeCpuGemmIntrinsic("x86.avx512", "vfmadd231ps", 16, 1, "f32", "f32", 32,
           "fp32 fused multiply-add on 512-bit zmm registers (AVX-512F)"),
      MakeCpuGemmIntrinsic("x86.vnni", "vpdpbusd", 16, 4, "u8s8", "s32", 32,
           "u8 x s8 dot product of 4-element groups accumulated into s32 (AVX-512 VNNI)"),
      MakeCpuGemmIntrinsic("x86.bf16", "vdpbf16ps", 16, 2, "bf16", "f32", 32,
           "bf16 pair dot product accumulated into fp32 (AVX-512 BF16)"),
  };
}

std::vector<std::vector<std::string>> RequiredCpuFlags(const std::string& intrinsic) {
  if (intrinsic == "x86.avx2") return {{"avx2"}, {"fma"}};
  if (intrinsic == "x86.avx512") return {{"avx512f"}};
  // Older kernels spell the VNNI flag without the underscore.
  if (intrinsic == "x86.vnni") return {{"avx512f"}, {"avx512_vnni", "avx512vnni"}};
  if (intrinsic == "x86.bf16") return {{"avx512f"}, {"avx512_bf16"}};
  return {};
}

}  // namespace ucmoh::x86
