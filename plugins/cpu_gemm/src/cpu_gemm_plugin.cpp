#include "ucmoh/cpu_gemm/cpu_gemm_plugin.h"

#include <utility>

#include "ucmoh/cpu_gemm/gemm_lowering.h"
#include "ucmoh/cpu_gemm/gemm_problem.h"
#include "ucmoh/cpu_gemm/gemm_schedule.h"
#include "ucmoh/cpu_gemm/gemm_task_suites.h"
#include "ucmoh/cpu_gemm/gemm_template.h"
#include "ucmoh/cpu_gemm/schedule_sampler.h"

namespace ucmoh::cpu_gemm {

CpuGemmIntrinsic MakeCpuGemmIntrinsic(std::string name, std::string instruction, int64_t n,
                                      int64_t k, std::string input, std::string accum,
                                      int64_t vector_registers, std::string description) {
  CpuGemmIntrinsic intrinsic;
  IntrinsicInfo& info = intrinsic.info;
  info.name = std::move(name);
  info.instruction = std::move(instruction);
  info.m = 1;
  info.n = n;
  info.k = k;
  info.input_type = std::move(input);
  info.accum_type = std::move(accum);
  info.ops_per_call = static_cast<double>(2 * info.m * info.n * info.k);
  info.description = std::move(description);
  intrinsic.vector_registers = vector_registers;
  return intrinsic;
}

CpuGemmPlugin::CpuGemmPlugin(TargetInfo target, std::vector<CpuGemmIntrinsic> intrinsics)
    : target_(std::move(target)), intrinsics_(std::move(intrinsics)) {}

std::vector<IntrinsicInfo> CpuGemmPlugin::Intrinsics() const {
  std::vector<IntrinsicInfo> infos;
  for (const CpuGemmIntrinsic& intrinsic : intrinsics_) infos.push_back(intrinsic.info);
  return infos;
}

std::vector<std::string> CpuGemmPlugin::TemplateDimNames() const { return GemmTemplateDimNames(); }

std::vector<std::string> CpuGemmPlugin::TemplateInputNames() const { return GemmTemplateInputNames(); }

// Every stage of a GEMM program carries the same values (the schedule's).
Expected<TemplateValues> CpuGemmPlugin::StageTemplate(const std::string& intrinsic, const TemplateInputs& inputs,
                                                      const Stage&, const HardwareParams& hardware) const {
  auto profile = Profile(intrinsic, hardware);
  if (!profile.ok()) return profile.status();
  return GemmTemplateValues(inputs, *profile);
}

std::vector<std::string> CpuGemmPlugin::TaskSuites() const { return GemmSuiteNames(); }

const CpuGemmIntrinsic* CpuGemmPlugin::FindIntrinsic(const std::string& intrinsic) const {
  for (const CpuGemmIntrinsic& candidate : intrinsics_) {
    if (candidate.info.name == intrinsic) return &candidate;
  }
  return nullptr;
}

Status CpuGemmPlugin::UnknownIntrinsic(const std::string& intrinsic) const {
  std::string known;
  for (const CpuGemmIntrinsic& candidate : intrinsics_) {
    known += (known.empty() ? "" : ", ") + candidate.info.name;
  }
  return Status::NotFound("target " + target_.name + " has no intrinsic '" + intrinsic +
                          "' (it has " + known + ")");
}

Expected<IsaProfile> CpuGemmPlugin::Profile(const std::string& intrinsic,
                                            const HardwareParams& hardware) const {
  const CpuGemmIntrinsic* found = FindIntrinsic(intrinsic);
  if (!found) return UnknownIntrinsic(intrinsic);
  if (hardware.is_gpu)
    return Status::InvalidArgument(target_.name + " lowers CPU programs, but the hardware '" + hardware.model +
                                   "' is a GPU");
  return MakeIsaProfile(found->info, found->vector_registers, hardware);
}

Expected<GemmPlan> CpuGemmPlugin::Plan(const Task& task, const std::string& intrinsic,
                                       const ParamMap& schedule, const HardwareParams& hardware) const {
  const CpuGemmIntrinsic* found = FindIntrinsic(intrinsic);
  if (!found) return UnknownIntrinsic(intrinsic);
  auto profile = Profile(intrinsic, hardware);
  if (!profile.ok()) return profile.status();
  auto problem = ProblemFromTask(task, found->info);
  if (!problem.ok()) return problem.status();
  auto parsed = ScheduleFromParams(schedule);
  if (!parsed.ok()) return parsed.status().WithContext(task.key);
  auto plan = MakeGemmPlan(*problem, *parsed, *profile);
  if (!plan.ok()) return plan.status().WithContext(task.key);
  return plan;
}

Expected<ProgramAst> CpuGemmPlugin::Lower(const Task& task, const std::string& intrinsic,
                                          const ParamMap& schedule, const HardwareParams& hardware) const {
  auto plan = Plan(task, intrinsic, schedule, hardware);
  if (!plan.ok()) return plan.status();
  return LowerGemm(*plan);
}

Expected<std::vector<Task>> CpuGemmPlugin::Tasks(const std::string& suite,
                                                 const std::string& intrinsic) const {
  const CpuGemmIntrinsic* found = FindIntrinsic(intrinsic);
  if (!found) return UnknownIntrinsic(intrinsic);
  return SuiteTasks(suite, found->info);
}

Expected<std::vector<ParamMap>> CpuGemmPlugin::SampleSchedules(const Task& task,
                                                               const std::string& intrinsic,
                                                               int64_t count, uint64_t seed) const {
  const CpuGemmIntrinsic* found = FindIntrinsic(intrinsic);
  if (!found) return UnknownIntrinsic(intrinsic);
  auto profile = Profile(intrinsic, target_.hardware);
  if (!profile.ok()) return profile.status();
  auto problem = ProblemFromTask(task, found->info);
  if (!problem.ok()) return problem.status();
  auto schedules = SampleGemmSchedules(*problem, *profile, count, seed);
  if (!schedules.ok()) return schedules.status().WithContext(task.key);
  std::vector<ParamMap> params;
  for (const GemmSchedule& s : *schedules) params.push_back(ToParams(s));
  return params;
}

}  // namespace ucmoh::cpu_gemm
