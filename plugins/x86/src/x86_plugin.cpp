#include "ucmoh/x86/x86_plugin.h"

#include <pthread.h>
#include <sched.h>

#include <utility>

#include "ucmoh/x86/autotvm_importer.h"
#include "ucmoh/x86/autotvm_lowering.h"
#include "ucmoh/x86/autotvm_templates.h"
#include "ucmoh/x86/gemm_driver.h"
#include "ucmoh/x86/gemm_operands.h"
#include "ucmoh/x86/host_hardware.h"
#include "ucmoh/x86/latency_timer.h"
#include "ucmoh/x86/measure_provenance.h"
#include "ucmoh/x86/thread_team.h"
#include "ucmoh/x86/x86_intrinsics.h"

namespace ucmoh::x86 {

namespace {

TargetInfo X86Target(HardwareParams hardware) {
  TargetInfo target;
  target.name = "x86";
  target.description = "the x86-64 host CPU, read when the plugin loads (what new measurements record)";
  target.hardware = std::move(hardware);
  return target;
}

// Pins the calling thread to one CPU for a scope and restores its mask after,
// so the measuring thread (team member 0) never migrates mid-measurement.
class ScopedPin {
 public:
  explicit ScopedPin(int cpu) {
    saved_ok_ = pthread_getaffinity_np(pthread_self(), sizeof(saved_), &saved_) == 0;
    PinCurrentThread(cpu);
  }
  ~ScopedPin() {
    if (saved_ok_) pthread_setaffinity_np(pthread_self(), sizeof(saved_), &saved_);
  }

 private:
  cpu_set_t saved_;
  bool saved_ok_ = false;
};

constexpr uint64_t kOperandSeed = 20240611;

}  // namespace

X86Plugin::X86Plugin() : X86Plugin(ReadHostHardware()) {}

X86Plugin::X86Plugin(HardwareParams hardware)
    : CpuGemmPlugin(X86Target(RecordedHardware(hardware)), X86Intrinsics()), host_(std::move(hardware)) {}

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

Expected<std::shared_ptr<GemmOperands>> X86Plugin::OperandsFor(const cpu_gemm::GemmPlan& plan) const {
  const cpu_gemm::GemmProblem& p = plan.problem;
  const std::string key = plan.profile.intrinsic + ':' + std::to_string(p.m) + 'x' + std::to_string(p.n) + 'x' +
                          std::to_string(p.k) + 'x' + std::to_string(p.batch);
  if (operands_ && operands_key_ == key) return operands_;
  operands_.reset();  // free the previous task's operands before allocating
  auto made = MakeGemmOperands(p, plan.profile, kOperandSeed);
  if (!made.ok()) return made.status();
  operands_ = *made;
  operands_key_ = key;
  return operands_;
}

Expected<Record> X86Plugin::Measure(const Task& task, const std::string& intrinsic,
                                    const ParamMap& schedule, const MeasureOptions& options) const {
  UCMOH_RETURN_IF_ERROR(CanMeasure(intrinsic));
  if (IsAutoTvmTask(task))
    return Status::Unsupported(task.key + " is an AutoTVM template's task: TVM measures those");
  auto plan = Plan(task, intrinsic, schedule, Target().hardware);
  if (!plan.ok()) return plan.status();
  if (options.threads > 0 && options.threads != plan->schedule.threads) {
    return Status::InvalidArgument("measure options ask for " + std::to_string(options.threads) +
                                   " threads but the schedule uses " + std::to_string(plan->schedule.threads));
  }
  std::lock_guard<std::mutex> lock(measure_mutex_);
  auto operands = OperandsFor(*plan);
  if (!operands.ok()) return operands.status().WithContext(task.key);
  auto runner = GemmRunner::Create(*plan, *operands);
  if (!runner.ok()) return runner.status().WithContext(task.key);
  const int64_t cores = static_cast<int64_t>(Target().hardware.cores);
  if (!team_ || team_->size() < cores) team_ = std::make_unique<ThreadTeam>(static_cast<int>(cores));
  ScopedPin pin(team_->cpus().front());
  const std::function<void()> run = [&] { (*runner)->Run(*team_); };

  TimingResult timing = TimeProgram(run, options);
  bool remeasured = false;
  if (timing.stats.cv > options.max_cv) {
    // Noise from the machine (other work, frequency changes) rather than the
    // program: measure once more and keep the steadier of the two.
    TimingResult again = TimeProgram(run, options);
    remeasured = true;
    if (again.stats.cv < timing.stats.cv) timing = again;
  }

  Record record;
  record.target = Target().name;
  record.intrinsic = intrinsic;
  record.task = task;
  record.schedule = schedule;
  record.latency = timing.stats;
  record.provenance = MeasuredProvenance(host_, intrinsic, plan->schedule.threads, team_->cpus());
  record.hardware = Target().hardware;
  record.provenance.details["runs_per_repeat"] = timing.runs_per_repeat;
  record.provenance.details["warmup_s"] = timing.warmup_s;
  record.provenance.details["remeasured"] = static_cast<int64_t>(remeasured);
  record.provenance.details["noisy"] = static_cast<int64_t>(timing.stats.cv > options.max_cv);
  record.provenance.details["max_cv"] = options.max_cv;
  record.provenance.details["gflops"] =
      timing.stats.median_s > 0 ? plan->problem.flops() / timing.stats.median_s * 1e-9 : 0.0;
  return record;
}

}  // namespace ucmoh::x86
