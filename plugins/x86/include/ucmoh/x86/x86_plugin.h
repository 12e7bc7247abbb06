// Target "x86": the host CPU, with the fp32 FMA (AVX2, AVX-512), VNNI and BF16
// dot-product intrinsics and two schedule families: the shared blocked-GEMM
// family (cpu_gemm), which it measures, and the AutoTVM x86 templates, which
// it imports from TVM's tuning logs and lowers (autotvm_templates.h).
#pragma once

#include <memory>
#include <string>

#include "ucmoh/cpu_gemm/cpu_gemm_measurer.h"
#include "ucmoh/cpu_gemm/cpu_gemm_plugin.h"

namespace ucmoh::x86 {

class X86Plugin : public cpu_gemm::CpuGemmPlugin {
 public:
  X86Plugin();                                     // reads this host
  // A given machine (tests). Target().hardware is RecordedHardware(hardware):
  // what a record measured here carries; the full flags go to provenance.
  explicit X86Plugin(HardwareParams hardware);
  ~X86Plugin() override;

  // Tasks of the AutoTVM family lower through autotvm_lowering.h, the rest
  // through cpu_gemm.
  Expected<ProgramAst> Lower(const Task& task, const std::string& intrinsic, const ParamMap& schedule,
                             const HardwareParams& hardware) const override;
  Expected<std::vector<ParamMap>> SampleSchedules(const Task& task, const std::string& intrinsic,
                                                  int64_t count, uint64_t seed) const override;
  std::vector<std::string> Importers() const override;
  Expected<ImportResult> Import(const std::string& format, const std::string& path) const override;

  // Ok when the hardware's CPU flags include everything the intrinsic's
  // instructions need; Unsupported naming the missing flag otherwise.
  Status CanMeasure(const std::string& intrinsic) const override;
  // Runs the program on this host with the x86 micro-kernels through
  // cpu_gemm's measurer (docs/data.md, "How it is measured").
  Expected<Record> Measure(const Task& task, const std::string& intrinsic,
                           const ParamMap& schedule, const MeasureOptions& options) const override;

 private:
  cpu_gemm::CpuGemmMeasurer measurer_;  // holds the full host reading, for provenance
};

}  // namespace ucmoh::x86
