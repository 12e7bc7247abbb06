#include "ucmoh/x86/x86_plugin.h"

#include <utility>

#include "ucmoh/x86/autotvm_importer.h"
#include "ucmoh/x86/autotvm_lowering.h"
#include "ucmoh/x86/autotvm_templates.h"
#include "ucmoh/x86/host_hardware.h"
#include "ucmoh/x86/micro_kernels.h"
#include "ucmoh/x86/x86_intrinsics.h"
#include "ucmoh/x86/x86_target.h"

namespace ucmoh::x86 {

X86Plugin::X86Plugin() : X86Plugin(ReadHostHardware()) {}

X86Plugin::X86Plugin(HardwareParams hardware)
    : CpuGemmPlugin(X86Target(hardware), X86Intrinsics()),
      measurer_(*this, std::move(hardware), X86Kernels()) {}

X86Plugin::~X86Plugin() = default;

Expected<ProgramAst> X86Plugin::Lower(const Task& task, const std::string& intrinsic, const ParamMap& schedule,
                                     const HardwareParams& hardware) const {
  if (!IsAutoTvmTask(task)) return CpuGemmPlugin::Lower(task, intrinsic, schedule, hardware);
  const cpu_gemm::CpuGemmIntrinsic* found = FindIntrinsic(intrinsic);
  if (!found) return UnknownIntrinsic(intrinsic);
  auto profile = Profile(intrinsic, hardware);
  if (!profile.ok()) return profile.status();
  auto program = AutoTvmProgramOf(task, schedule, found->info);
  if (!program.ok()) return program.status();
  return LowerAutoTvm(*program, *profile);
}

// AutoTVM programs are TVM's to build and run; this plugin only imports them.
Expected<std::vector<ParamMap>> X86Plugin::SampleSchedules(const Task& task, const std::string& intrinsic,
                                                           int64_t count, uint64_t seed) const {
  if (IsAutoTvmTask(task))
    return Status::Unsupported(task.key + " is an AutoTVM template's task: TVM samples and measures those");
  return CpuGemmPlugin::SampleSchedules(task, intrinsic, count, seed);
}

std::vector<std::string> X86Plugin::Importers() const { return {kAutoTvmFormat}; }

Expected<ImportResult> X86Plugin::Import(const std::string& format, const std::string& path) const {
  if (format != kAutoTvmFormat) return CpuGemmPlugin::Import(format, path);
  auto imported = ImportAutoTvmLog(path);
  if (!imported.ok()) return imported.status();
  ImportResult result;
  result.swap(imported->records);
  result.skipped = std::move(imported->failures);
  return result;
}

Status X86Plugin::CanMeasure(const std::string& intrinsic) const {
  if (!FindIntrinsic(intrinsic)) return UnknownIntrinsic(intrinsic);
  const HardwareParams hardware = Target().hardware;
  for (const std::vector<std::string>& alternatives : RequiredCpuFlags(intrinsic)) {
    bool present = false;
    for (const std::string& flag : alternatives) present = present || HasFlag(hardware, flag);
    if (!present) {
      return Status::Unsupported("x86 cannot measure " + intrinsic + ": this CPU (" + hardware.model +
                                 ") lacks the '" + alternatives.front() + "' flag");
    }
  }
  return Status::Ok();
}

Expected<Record> X86Plugin::Measure(const Task& task, const std::string& intrinsic,
                                    const ParamMap& schedule, const MeasureOptions& options) const {
  UCMOH_RETURN_IF_ERROR(CanMeasure(intrinsic));
  if (IsAutoTvmTask(task))
    return Status::Unsupported(task.key + " is an AutoTVM template's task: TVM measures those");
  return measurer_.Measure(task, intrinsic, schedule, options);
}

}  // namespace ucmoh::x86
