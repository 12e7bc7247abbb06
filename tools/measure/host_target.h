// The CPU target this ucmoh-measure was built for, on the machine it runs on:
// x86 in an x86-64 build, arm in an aarch64 build. One binary per
// architecture; `registry measure --host` copies the one that fits.
#pragma once

#include <string>

#include "ucmoh/cpu_gemm/cpu_gemm_measurer.h"
#include "ucmoh/cpu_gemm/cpu_gemm_plugin.h"
#include "ucmoh/cpu_gemm/micro_kernel.h"

namespace ucmoh::measure {

struct HostTarget {
  std::string arch;         // "x86_64", "aarch64": the build's, as `uname -m` spells it
  std::string emulation;    // why timing here would lie (an emulator); "" on a real host
  HardwareParams host;      // the full reading, for provenance
  cpu_gemm::CpuGemmPlugin plugin;  // the target on this host: what records carry
  const cpu_gemm::KernelLibrary* kernels = nullptr;
};

HostTarget ReadHostTarget();

// Ok when the intrinsic is this target's and this CPU runs its kernels.
Status CanRun(const HostTarget& target, const std::string& intrinsic);

}  // namespace ucmoh::measure
