// The part of a CPU target plugin that is the same on every CPU: the blocked
// GEMM schedule family, its lowering, sampling, template and task suites. A
// target (x86, arm) supplies its hardware and its intrinsics and adds what is
// its own (measurement).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ucmoh/cpu_gemm/gemm_plan.h"
#include "ucmoh/cpu_gemm/isa_profile.h"
#include "ucmoh/plugin.h"

namespace ucmoh::cpu_gemm {

// A target's intrinsic as the GEMM family sees it.
struct CpuGemmIntrinsic {
  IntrinsicInfo info;
  int64_t vector_registers = 16;  // of the instruction set the kernel is compiled for
};

// A 1 x n x k vector intrinsic (one broadcast row of A against n accumulator
// lanes, k-deep groups), with ops_per_call = 2·n·k.
CpuGemmIntrinsic MakeCpuGemmIntrinsic(std::string name, std::string instruction, int64_t n,
                                      int64_t k, std::string input, std::string accum,
                                      int64_t vector_registers, std::string description);

class CpuGemmPlugin : public TargetPlugin {
 public:
  CpuGemmPlugin(TargetInfo target, std::vector<CpuGemmIntrinsic> intrinsics);

  TargetInfo Target() const override { return target_; }
  std::vector<IntrinsicInfo> Intrinsics() const override;
  std::vector<std::string> TemplateDimNames() const override;
  Expected<ProgramAst> Lower(const Task& task, const std::string& intrinsic,
                             const ParamMap& schedule,
                             const HardwareParams& hardware) const override;
  std::vector<std::string> TemplateInputNames() const override;
  Expected<TemplateValues> StageTemplate(const std::string& intrinsic, const TemplateInputs& inputs,
                                         const Stage& stage, const HardwareParams& hardware) const override;
  std::vector<std::string> TaskSuites() const override;
  Expected<std::vector<Task>> Tasks(const std::string& suite,
                                    const std::string& intrinsic) const override;
  Expected<std::vector<ParamMap>> SampleSchedules(const Task& task, const std::string& intrinsic,
                                                  int64_t count, uint64_t seed) const override;

  // One of this target's intrinsics on a given CPU (a record's hardware, or
  // Target().hardware for new measurements). Refuses a GPU.
  Expected<IsaProfile> Profile(const std::string& intrinsic, const HardwareParams& hardware) const;
  // The plan a driver runs (and Lower describes) for one program on `hardware`.
  Expected<GemmPlan> Plan(const Task& task, const std::string& intrinsic, const ParamMap& schedule,
                          const HardwareParams& hardware) const;

 protected:
  // The intrinsic, or nullptr when this target has none of that name.
  const CpuGemmIntrinsic* FindIntrinsic(const std::string& intrinsic) const;
  Status UnknownIntrinsic(const std::string& intrinsic) const;

 private:
  TargetInfo target_;
  std::vector<CpuGemmIntrinsic> intrinsics_;
};

}  // namespace ucmoh::cpu_gemm
