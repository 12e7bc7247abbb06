// Target "x86": the host CPU, with the fp32 FMA (AVX2, AVX-512), VNNI and BF16
// dot-product intrinsics and the shared blocked-GEMM schedule family.
#pragma once

#include "ucmoh/cpu_gemm/cpu_gemm_plugin.h"

namespace ucmoh::x86 {

class X86Plugin : public cpu_gemm::CpuGemmPlugin {
 public:
  X86Plugin();                                     // reads this host
  explicit X86Plugin(HardwareParams hardware);     // a given machine (tests)

  // Ok when the hardware's CPU flags include everything the intrinsic's
  // instructions need; Unsupported naming the missing flag otherwise.
  Status CanMeasure(const std::string& intrinsic) const override;
  // Not yet: the kernels and the driver come with the next issue.
  Expected<Record> Measure(const Task& task, const std::string& intrinsic,
                           const ParamMap& schedule, const MeasureOptions& options) const override;
};

}  // namespace ucmoh::x86
