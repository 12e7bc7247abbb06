#include "ucmoh/arm/arm_kernels.h"

#if UCMOH_ARM_KERNELS
#include <asm/hwcap.h>
#include <sys/auxv.h>
#endif

namespace ucmoh::arm {

namespace {

#if UCMOH_ARM_KERNELS
bool CpuSupportsIntrinsic(const std::string& intrinsic) {
  const unsigned long hwcap = getauxval(AT_HWCAP);
  if (intrinsic == "arm.neon") return (hwcap & HWCAP_ASIMD) != 0;
  if (intrinsic == "arm.sdot") return (hwcap & HWCAP_ASIMDDP) != 0;
  return false;
}

KernelFn FindMicroKernel(const std::string& intrinsic, int64_t mr, int64_t nr_vec, int64_t k_unroll) {
  if (intrinsic == "arm.neon") return FindNeonKernel(mr, nr_vec, k_unroll);
  if (intrinsic == "arm.sdot") return FindSdotKernel(mr, nr_vec, k_unroll);
  return nullptr;
}
#else
bool CpuSupportsIntrinsic(const std::string&) { return false; }
KernelFn FindMicroKernel(const std::string&, int64_t, int64_t, int64_t) { return nullptr; }
#endif

std::string KernelTargetAttribute(const std::string& intrinsic) {
  if (intrinsic == "arm.neon") return "armv8-a+simd";
  if (intrinsic == "arm.sdot") return "armv8.2-a+dotprod";
  return "";
}

}  // namespace

bool HasArmKernels() { return UCMOH_ARM_KERNELS != 0; }

const cpu_gemm::KernelLibrary& ArmKernels() {
  static const cpu_gemm::KernelLibrary kernels{&CpuSupportsIntrinsic, &FindMicroKernel, &KernelTargetAttribute};
  return kernels;
}

}  // namespace ucmoh::arm
