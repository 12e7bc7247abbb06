// The x86 target on one machine: its description, and the GEMM family over
// its intrinsics. The plugin module builds on it; ucmoh-measure (which has no
// importers and loads no module) plans and measures with it alone.
#pragma once

#include "ucmoh/cpu_gemm/cpu_gemm_plugin.h"

namespace ucmoh::x86 {

// "x86" with RecordedHardware(host): what a record measured on `host` carries.
TargetInfo X86Target(const HardwareParams& host);

// The cpu_gemm family over the four x86 intrinsics on `host`.
cpu_gemm::CpuGemmPlugin X86GemmTarget(const HardwareParams& host);

}  // namespace ucmoh::x86
