#include "ucmoh/x86/micro_kernels.h"

namespace ucmoh::x86 {

namespace {

#if UCMOH_X86_KERNELS
KernelFn FindMicroKernel(const std::string& intrinsic, int64_t mr, int64_t nr_vec, int64_t k_unroll) {
  if (intrinsic == "x86.avx2") return FindAvx2Kernel(mr, nr_vec, k_unroll);
  if (intrinsic == "x86.avx512") return FindAvx512Kernel(mr, nr_vec, k_unroll);
  if (intrinsic == "x86.vnni") return FindVnniKernel(mr, nr_vec, k_unroll);
  if (intrinsic == "x86.bf16") return FindBf16Kernel(mr, nr_vec, k_unroll);
  return nullptr;
}

bool CpuSupportsIntrinsic(const std::string& intrinsic) {
  __builtin_cpu_init();
  if (intrinsic == "x86.avx2") return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  if (intrinsic == "x86.avx512") return __builtin_cpu_supports("avx512f");
  if (intrinsic == "x86.vnni") {
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vnni");
  }
  if (intrinsic == "x86.bf16") {
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bf16");
  }
  return false;
}
#else
KernelFn FindMicroKernel(const std::string&, int64_t, int64_t, int64_t) { return nullptr; }
bool CpuSupportsIntrinsic(const std::string&) { return false; }
#endif

std::string KernelTargetAttribute(const std::string& intrinsic) {
  if (intrinsic == "x86.avx2") return "avx2,fma";
  if (intrinsic == "x86.avx512") return "avx512f";
  if (intrinsic == "x86.vnni") return "avx512f,avx512vnni";
  if (intrinsic == "x86.bf16") return "avx512f,avx512bf16";
  return "";
}

}  // namespace

const cpu_gemm::KernelLibrary& X86Kernels() {
  static const cpu_gemm::KernelLibrary kernels{&CpuSupportsIntrinsic, &FindMicroKernel, &KernelTargetAttribute};
  return kernels;
}

}  // namespace ucmoh::x86
