#include "ucmoh/cpu_gemm/cpu_gemm_measurer.h"

#include <pthread.h>
#include <sched.h>

#include <utility>

#include "ucmoh/cpu_gemm/gemm_driver.h"
#include "ucmoh/cpu_gemm/gemm_operands.h"
#include "ucmoh/cpu_gemm/latency_timer.h"
#include "ucmoh/cpu_gemm/measure_provenance.h"
#include "ucmoh/cpu_gemm/thread_team.h"

namespace ucmoh::cpu_gemm {

namespace {

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

CpuGemmMeasurer::CpuGemmMeasurer(const CpuGemmPlugin& plugin, HardwareParams host, const KernelLibrary& kernels)
    : plugin_(plugin), host_(std::move(host)), kernels_(kernels) {}

CpuGemmMeasurer::~CpuGemmMeasurer() = default;

Status KernelsRunOnThisCpu(const KernelLibrary& kernels, const std::string& host_model, const std::string& intrinsic) {
  if (kernels.cpu_supports(intrinsic)) return Status::Ok();
  return Status::Unsupported("this CPU (" + host_model + ") does not execute " + intrinsic + " instructions");
}

Status CpuGemmMeasurer::CanRun(const std::string& intrinsic) const {
  return KernelsRunOnThisCpu(kernels_, host_.model, intrinsic);
}

Expected<std::shared_ptr<GemmOperands>> CpuGemmMeasurer::OperandsFor(const GemmPlan& plan) const {
  const GemmProblem& p = plan.problem;
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

Expected<Record> CpuGemmMeasurer::Measure(const Task& task, const std::string& intrinsic,
                                          const ParamMap& schedule, const MeasureOptions& options) const {
  UCMOH_RETURN_IF_ERROR(CanRun(intrinsic));
  auto plan = plugin_.Plan(task, intrinsic, schedule, plugin_.Target().hardware);
  if (!plan.ok()) return plan.status();
  if (options.threads > 0 && options.threads != plan->schedule.threads) {
    return Status::InvalidArgument("measure options ask for " + std::to_string(options.threads) +
                                   " threads but the schedule uses " + std::to_string(plan->schedule.threads));
  }
  std::lock_guard<std::mutex> lock(mutex_);
  auto operands = OperandsFor(*plan);
  if (!operands.ok()) return operands.status().WithContext(task.key);
  auto runner = GemmRunner::Create(*plan, *operands, kernels_);
  if (!runner.ok()) return runner.status().WithContext(task.key);
  const int64_t cores = static_cast<int64_t>(plugin_.Target().hardware.cores);
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
  Record record = MakeRecord(task, intrinsic, schedule, *plan);
  record.latency = timing.stats;
  record.provenance.details["runs_per_repeat"] = timing.runs_per_repeat;
  record.provenance.details["warmup_s"] = timing.warmup_s;
  record.provenance.details["remeasured"] = static_cast<int64_t>(remeasured);
  record.provenance.details["noisy"] = static_cast<int64_t>(timing.stats.cv > options.max_cv);
  record.provenance.details["max_cv"] = options.max_cv;
  record.provenance.details["gflops"] =
      timing.stats.median_s > 0 ? plan->problem.flops() / timing.stats.median_s * 1e-9 : 0.0;
  return record;
}

Record CpuGemmMeasurer::MakeRecord(const Task& task, const std::string& intrinsic, const ParamMap& schedule,
                                   const GemmPlan& plan) const {
  const TargetInfo target = plugin_.Target();
  Record record;
  record.target = target.name;
  record.intrinsic = intrinsic;
  record.task = task;
  record.schedule = schedule;
  record.provenance = MeasuredProvenance(target.name, host_, kernels_.target_attribute(intrinsic),
                                         plan.schedule.threads, team_->cpus());
  record.hardware = target.hardware;
  return record;
}

}  // namespace ucmoh::cpu_gemm
