// The x86 intrinsics the plugin describes, and the CPU flags each needs to run.
#pragma once

#include <string>
#include <vector>

#include "ucmoh/cpu_gemm/cpu_gemm_plugin.h"

namespace ucmoh::x86 {

// x86.avx2, x86.avx512, x86.vnni, x86.bf16: always all four, whatever the host.
std::vector<cpu_gemm::CpuGemmIntrinsic> X86Intrinsics();

// The /proc/cpuinfo flags an intrinsic needs; each inner list is a set of
// alternative spellings of one requirement. Empty for an unknown intrinsic.
std::vector<std::vector<std::string>> RequiredCpuFlags(const std::string& intrinsic);

}  // namespace ucmoh::x86
