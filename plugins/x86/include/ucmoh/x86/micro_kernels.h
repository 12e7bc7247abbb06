// The register-tile micro-kernels of the x86 intrinsics, one per
// (intrinsic, mr, nr_vec, k_unroll) inside the register budget
// (docs/cpu-gemm.md, "Register budget"). Each kernel is an instantiation of
// cpu_gemm's micro_kernel_template.inc compiled with its instruction set's
// per-function target attribute, so this library runs on any x86-64 CPU and
// executes an instruction only when the driver asks for that intrinsic's
// kernel; X86Kernels().cpu_supports is the runtime feature check.
#pragma once

#include <cstdint>
#include <string>

#include "ucmoh/cpu_gemm/micro_kernel.h"

namespace ucmoh::x86 {

using cpu_gemm::KernelCall;
using cpu_gemm::KernelFn;

// x86.avx2, x86.avx512, x86.vnni and x86.bf16 (CPUID through the compiler's
// __builtin_cpu_supports, independent of /proc/cpuinfo).
const cpu_gemm::KernelLibrary& X86Kernels();

// The per-ISA tables (kernels/*.cpp).
KernelFn FindAvx2Kernel(int64_t mr, int64_t nr_vec, int64_t k_unroll);
KernelFn FindAvx512Kernel(int64_t mr, int64_t nr_vec, int64_t k_unroll);
KernelFn FindVnniKernel(int64_t mr, int64_t nr_vec, int64_t k_unroll);
KernelFn FindBf16Kernel(int64_t mr, int64_t nr_vec, int64_t k_unroll);

}  // namespace ucmoh::x86
