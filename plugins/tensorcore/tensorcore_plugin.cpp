#include "tensorcore_plugin.h"

#include "cutlass_importer.h"
#include "hardware.h"
#include "intrinsics.h"
#include "lowering.h"
#include "program.h"
#include "resnet50_suite.h"
#include "schedule_space.h"

namespace ucmoh::tensorcore {

TargetInfo TensorCorePlugin::Target() const { return TensorCoreTarget(); }

std::vector<IntrinsicInfo> TensorCorePlugin::Intrinsics() const {
  std::vector<IntrinsicInfo> infos;
  for (const auto& intrinsic : AllIntrinsics()) infos.push_back(intrinsic.info);
  return infos;
}

std::vector<std::string> TensorCorePlugin::TemplateDimNames() const {
  return tensorcore::TemplateDimNames();
}

Expected<ProgramAst> TensorCorePlugin::Lower(const Task& task, const std::string& intrinsic,
                                             const ParamMap& schedule,
                                             const HardwareParams& hardware) const {
  auto arch = ArchitectureOf(hardware);
  if (!arch.ok()) return arch.status().WithContext(task.key);
  auto program = ResolveProgram(task, intrinsic, schedule, **arch);
  if (!program.ok()) return program.status();
  return LowerProgram(*program);
}

std::vector<std::string> TensorCorePlugin::TemplateInputNames() const { return tensorcore::TemplateInputNames(); }

// Kernel-wide values: every stage gets the same.
Expected<TemplateValues> TensorCorePlugin::StageTemplate(const std::string& intrinsic, const TemplateInputs& inputs,
                                                         const Stage&, const HardwareParams& hardware) const {
  auto arch = ArchitectureOf(hardware);
  if (!arch.ok()) return arch.status();
  const TensorCoreIntrinsic* found = FindIntrinsic(intrinsic);
  if (!found)
    return Status::NotFound("tensorcore has no intrinsic '" + intrinsic + "' (it has " + IntrinsicNameList() + ")");
  UCMOH_RETURN_IF_ERROR(CheckIntrinsicRuns(*found, **arch));
  return KernelTemplateValues(inputs, **arch);
}

std::vector<std::string> TensorCorePlugin::TaskSuites() const { return {kResnet50Suite}; }

Expected<std::vector<Task>> TensorCorePlugin::Tasks(const std::string& suite,
                                                    const std::string& intrinsic_name) const {
  if (suite != kResnet50Suite)
    return Status::NotFound("tensorcore has no task suite '" + suite + "' (it has " +
                            kResnet50Suite + ")");
  const TensorCoreIntrinsic* intrinsic = FindIntrinsic(intrinsic_name);
  if (!intrinsic)
    return Status::NotFound("unknown intrinsic '" + intrinsic_name + "' (tensorcore has " +
                            IntrinsicNameList() + ")");
  const IntrinsicInfo& info = intrinsic->info;
  std::vector<Task> tasks;
  // The output is written in the accumulator type, as in the public CUTLASS data.
  for (const ConvProblem& layer : Resnet50Layers(info.input_type, info.accum_type, info.accum_type))
    tasks.push_back(MakeConvTask(suite, layer, *intrinsic));
  return tasks;
}

Expected<std::vector<ParamMap>> TensorCorePlugin::SampleSchedules(const Task& task,
                                                                  const std::string& intrinsic_name,
                                                                  int64_t count,
                                                                  uint64_t seed) const {
  if (count < 1)
    return Status::InvalidArgument(task.key + ": schedule count " + std::to_string(count) +
                                   " must be positive");
  auto intrinsic = ResolveIntrinsic(task, intrinsic_name);
  if (!intrinsic.ok()) return intrinsic.status();
  auto problem = ResolveProblem(task, **intrinsic);
  if (!problem.ok()) return problem.status();
  std::vector<ParamMap> schedules;
  for (const KernelConfig& config : tensorcore::SampleSchedules(*problem, **intrinsic, count, seed))
    schedules.push_back(ScheduleParams(config, **intrinsic, problem->kind));
  if (schedules.empty())
    return Status::NotFound(task.key + ": no valid " + intrinsic_name + " kernel configuration");
  return schedules;
}

std::vector<std::string> TensorCorePlugin::Importers() const { return {kCutlassFormat}; }

Expected<ImportResult> TensorCorePlugin::Import(const std::string& format, const std::string& path) const {
  if (format != kCutlassFormat)
    return Status::Unsupported("tensorcore has no importer '" + format + "' for " + path +
                               " (it has " + kCutlassFormat + ")");
  auto records = ImportCutlassCsv(path);
  if (!records.ok()) return records.status();
  ImportResult result;
  result.swap(*records);
  return result;
}

}  // namespace ucmoh::tensorcore
