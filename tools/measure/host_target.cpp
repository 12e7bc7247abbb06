#include "host_target.h"

#if defined(__aarch64__)
#include "ucmoh/arm/arm_host.h"
#include "ucmoh/arm/arm_kernels.h"
#include "ucmoh/arm/arm_plugin.h"
#elif defined(__x86_64__)
#include "ucmoh/x86/host_hardware.h"
#include "ucmoh/x86/micro_kernels.h"
#include "ucmoh/x86/x86_target.h"
#else
#error "ucmoh-measure has kernels for x86-64 and aarch64 only"
#endif

namespace ucmoh::measure {

#if defined(__aarch64__)
HostTarget ReadHostTarget() {
  const HardwareParams host = arm::ReadArmHostHardware();
  const std::string emulation =
      arm::OnNativeArmHost() ? ""
                             : "this aarch64 binary runs under an emulator (/proc/cpuinfo is not an aarch64 "
                               "kernel's): programs run correctly, but no latency measured here is real";
  return HostTarget{"aarch64", emulation, host, arm::ArmGemmTarget(host), &arm::ArmKernels()};
}
#else
HostTarget ReadHostTarget() {
  const HardwareParams host = x86::ReadHostHardware();
  return HostTarget{"x86_64", "", host, x86::X86GemmTarget(host), &x86::X86Kernels()};
}
#endif

Status CanRun(const HostTarget& target, const std::string& intrinsic) {
  auto profile = target.plugin.Profile(intrinsic, target.plugin.Target().hardware);
  if (!profile.ok()) return profile.status();
  return cpu_gemm::KernelsRunOnThisCpu(*target.kernels, target.host.model, intrinsic);
}

}  // namespace ucmoh::measure
