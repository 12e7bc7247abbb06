// Target "arm": an aarch64 CPU with the NEON fp32 FMLA and the SDOT int8
// dot-product intrinsics, and the shared blocked-GEMM schedule family under
// NEON's 32-register budget. On a real aarch64 host (a native build) the
// target is that host, read when the plugin loads, and the plugin measures
// with the arm micro-kernels; anywhere else it is an AWS Graviton2 (fixed
// published numbers) that samples, lowers and featurizes programs, and
// measurement goes to an aarch64 host over ssh (`registry measure arm.sdot
// --host USER@HOST`, docs/arm.md).
#pragma once

#include <vector>

#include "ucmoh/cpu_gemm/cpu_gemm_measurer.h"
#include "ucmoh/cpu_gemm/cpu_gemm_plugin.h"

namespace ucmoh::arm {

// arm.neon and arm.sdot.
std::vector<cpu_gemm::CpuGemmIntrinsic> ArmIntrinsics();

// "arm" on given hardware (a host reading, or Graviton2Hardware()).
TargetInfo ArmTarget(const HardwareParams& hardware);

// The cpu_gemm family over the arm intrinsics on `hardware`: what
// ucmoh-measure plans and measures against on an aarch64 host.
cpu_gemm::CpuGemmPlugin ArmGemmTarget(const HardwareParams& hardware);

class ArmPlugin : public cpu_gemm::CpuGemmPlugin {
 public:
  ArmPlugin();  // this host on a native aarch64 build, else Graviton2
  explicit ArmPlugin(HardwareParams hardware);

  // Ok only on a native aarch64 host whose CPU has the intrinsic; elsewhere
  // Unsupported, naming `registry measure INTRINSIC --host`.
  Status CanMeasure(const std::string& intrinsic) const override;
  Expected<Record> Measure(const Task& task, const std::string& intrinsic, const ParamMap& schedule,
                           const MeasureOptions& options) const override;

 private:
  cpu_gemm::CpuGemmMeasurer measurer_;
};

}  // namespace ucmoh::arm
