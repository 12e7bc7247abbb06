// probe and plan: what a driving host asks before it sends work.
#include <cstdio>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "ucmoh/hardware_json.h"
#include "ucmoh/record_json.h"

namespace ucmoh::measure {

int Fail(const Status& status, int code) {
  std::fprintf(stderr, "error: %s\n", status.message().c_str());
  return code;
}

int Probe(const HostTarget& target, const std::string& intrinsic) {
  const Status can = CanRun(target, intrinsic);
  if (can.code() == Status::Code::kNotFound) return Fail(can, kExitBadInput);
  const TargetInfo info = target.plugin.Target();
  nlohmann::json probe = {
      {"arch", target.arch},
      {"emulation", target.emulation},
      {"target", info.name},
      {"intrinsic", intrinsic},
      {"can_measure", can.ok() && target.emulation.empty()},
      {"reason", !target.emulation.empty() ? target.emulation : can.ok() ? "" : can.message()},
      {"hardware", HardwareToJson(info.hardware)},
  };
  std::printf("%s\n", probe.dump().c_str());
  return 0;
}

int Plan(const HostTarget& target, const std::string& intrinsic, const PlanArgs& args) {
  if (args.per_task < 1) return Fail(Status::InvalidArgument("--per-task must be >= 1"), kExitBadInput);
  auto tasks = target.plugin.Tasks(args.suite, intrinsic);
  if (!tasks.ok()) return Fail(tasks.status(), kExitBadInput);
  if (args.max_tasks > 0 && static_cast<int64_t>(tasks->size()) > args.max_tasks) tasks->resize(args.max_tasks);
  for (const Task& task : *tasks) {
    auto schedules = target.plugin.SampleSchedules(task, intrinsic, args.per_task, args.seed);
    if (!schedules.ok()) return Fail(schedules.status(), kExitFailed);
    for (ParamMap& schedule : *schedules) {
      Record program;
      program.target = target.plugin.Target().name;
      program.intrinsic = intrinsic;
      program.task = task;
      program.schedule = std::move(schedule);
      std::printf("%s\n", ProgramToJsonLine(program).c_str());
    }
  }
  return std::fflush(stdout) == 0 ? 0 : kExitFailed;
}

}  // namespace ucmoh::measure
