// The register-tile micro-kernels of the arm intrinsics: NEON fp32 FMLA
// (arm.neon) and SDOT int8 (arm.sdot), instantiations of cpu_gemm's
// micro_kernel_template.inc with <arm_neon.h>. They are compiled only when
// building for aarch64 (natively, or the cross-built ucmoh-measure); on any
// other host ArmKernels() runs nothing and says so.
#pragma once

#include <cstdint>
#include <string>

#include "ucmoh/cpu_gemm/micro_kernel.h"

namespace ucmoh::arm {

using cpu_gemm::KernelCall;
using cpu_gemm::KernelFn;

// cpu_supports reads the kernel's hardware capabilities (getauxval(AT_HWCAP):
// ASIMD for arm.neon, ASIMDDP for arm.sdot).
const cpu_gemm::KernelLibrary& ArmKernels();

// Whether this build has the arm kernels (built for aarch64).
bool HasArmKernels();

// The per-ISA tables (kernels/*.cpp; aarch64 builds only).
KernelFn FindNeonKernel(int64_t mr, int64_t nr_vec, int64_t k_unroll);
KernelFn FindSdotKernel(int64_t mr, int64_t nr_vec, int64_t k_unroll);

}  // namespace ucmoh::arm
