// The "tensorcore" target plugin: NVIDIA Ampere tensor cores, programs are
// CUTLASS implicit-GEMM conv2d kernels. docs/tensorcore.md is its reference.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "ucmoh/plugin.h"

namespace ucmoh::tensorcore {

class TensorCorePlugin : public TargetPlugin {
 public:
  TargetInfo Target() const override;
  std::vector<IntrinsicInfo> Intrinsics() const override;
  std::vector<std::string> TemplateDimNames() const override;
  // Lowers for the sm_86 resource limits of hardware.h; refuses hardware that
  // is not an sm_86 GPU, since its occupancy would be mis-modelled.
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
  std::vector<std::string> Importers() const override;
  Expected<ImportResult> Import(const std::string& format,
                                       const std::string& path) const override;
};

}  // namespace ucmoh::tensorcore
