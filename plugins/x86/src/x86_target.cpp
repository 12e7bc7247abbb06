#include "ucmoh/x86/x86_target.h"

#include "ucmoh/x86/host_hardware.h"
#include "ucmoh/x86/x86_intrinsics.h"

namespace ucmoh::x86 {

TargetInfo X86Target(const HardwareParams& host) {
  TargetInfo target;
  target.name = "x86";
  target.description = "the x86-64 host CPU, read when the plugin loads (what new measurements record)";
  target.hardware = RecordedHardware(host);
  return target;
}

cpu_gemm::CpuGemmPlugin X86GemmTarget(const HardwareParams& host) {
  return cpu_gemm::CpuGemmPlugin(X86Target(host), X86Intrinsics());
}

}  // namespace ucmoh::x86
