// Target "x86": the host CPU, with the fp32 FMA (AVX2, AVX-512), VNNI and BF16
// dot-product intrinsics and two schedule families: the shared blocked-GEMM
// family (cpu_gemm), which it measures, and the AutoTVM x86 templates, which
// it imports from TVM's tuning logs and lowers (autotvm_templates.h).
#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "ucmoh/cpu_gemm/cpu_gemm_plugin.h"

namespace ucmoh::x86 {

struct GemmOperands;
class ThreadTeam;

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
  // Runs the program on this host with the intrinsic's micro-kernels and the
  // blocked driver, pinned, and times it (docs/data.md, "How it is measured").
  // One measurement at a time per plugin; the operands of the last task are
  // kept, so measuring a task's programs one after another allocates once.
  Expected<Record> Measure(const Task& task, const std::string& intrinsic,
                           const ParamMap& schedule, const MeasureOptions& options) const override;

 private:
  Expected<std::shared_ptr<GemmOperands>> OperandsFor(const cpu_gemm::GemmPlan& plan) const;

  HardwareParams host_;  // the full reading, flags and all, for provenance
  mutable std::mutex measure_mutex_;
  mutable std::string operands_key_;
  mutable std::shared_ptr<GemmOperands> operands_;
  mutable std::unique_ptr<ThreadTeam> team_;
};

}  // namespace ucmoh::x86
