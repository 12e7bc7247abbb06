// registry measure INTRINSIC --tasks SUITE --per-task N -o FILE.jsonl: samples
// N schedules per task of the suite, runs and times each program on this host
// through the intrinsic's plugin, and appends one record per program to FILE.
// With --host USER@HOST (repeatable) the programs run on those hosts over ssh
// instead (remote_measure.h), with the same resumable file.
// Resumable: programs already in FILE (by ProgramKey) are skipped, so running
// the same command twice adds nothing; records are appended whole (never half
// a line; SIGINT / SIGTERM stop after the program in flight and append what
// was measured). A host that lacks the intrinsic is refused with one line.
#include <fmt/format.h>

#include <chrono>

#include "cli_progress.h"
#include "cli_stop.h"
#include "commands.h"
#include "remote_measure.h"
#include "ucmoh/records_io.h"

namespace ucmoh::cli {

namespace {

struct MeasureArgs : MeasureRequest {
  int64_t flush_every = 25;  // records per append (each append ends with fsync)
};

struct Pending {
  Task task;
  ParamMap schedule;
};

int RunMeasure(const GlobalOptions& global, const MeasureArgs& args) {
  auto plugins = Plugins(global);
  if (!plugins.ok()) return Fail(plugins.status());
  const LoadedPlugin* loaded = (*plugins)->ForIntrinsic(args.intrinsic);
  if (!loaded) return Fail(Status::NotFound("no loaded plugin has intrinsic '" + args.intrinsic + "'"));
  const TargetPlugin& plugin = *loaded->plugin;
  if (args.per_task < 1) return Fail(Status::InvalidArgument("--per-task must be >= 1"));
  if (!args.hosts.empty()) return RunRemoteMeasure(args, loaded->target.name);
  Status can = plugin.CanMeasure(args.intrinsic);
  if (!can.ok()) return Fail(can);

  auto tasks = plugin.Tasks(args.suite, args.intrinsic);
  if (!tasks.ok()) return Fail(tasks.status());
  if (args.max_tasks > 0 && static_cast<int64_t>(tasks->size()) > args.max_tasks) tasks->resize(args.max_tasks);
  auto done = ReadProgramKeys(args.output);
  if (!done.ok()) return Fail(done.status());

  // Everything to run, in task order (a task's operands are allocated once).
  std::vector<Pending> pending;
  int64_t skipped = 0;
  for (const Task& task : *tasks) {
    auto schedules = plugin.SampleSchedules(task, args.intrinsic, args.per_task, args.seed);
    if (!schedules.ok()) return Fail(schedules.status());
    for (ParamMap& schedule : *schedules) {
      Record key_only;
      key_only.target = loaded->target.name;
      key_only.intrinsic = args.intrinsic;
      key_only.task = task;
      key_only.schedule = schedule;
      key_only.hardware = loaded->target.hardware;  // what Measure records
      if (done->count(ProgramKey(key_only))) {
        ++skipped;
        continue;
      }
      pending.push_back({task, std::move(schedule)});
    }
  }

  ProgressLine progress(!args.quiet);
  const auto start = std::chrono::steady_clock::now();
  std::vector<Record> batch;
  int64_t measured = 0, noisy = 0;
  auto flush = [&]() -> Status {
    Status s = AppendRecords(args.output, batch);
    batch.clear();
    return s;
  };
  StopOnSignals();  // the loop stops after the program in flight and appends what it measured
  for (size_t i = 0; i < pending.size() && !StopRequested(); ++i) {
    auto record = plugin.Measure(pending[i].task, args.intrinsic, pending[i].schedule, args.options);
    if (!record.ok()) {
      progress.Finish();
      Status flushed = flush();
      if (!flushed.ok()) return Fail(flushed);
      return Fail(record.status());
    }
    if (record->latency.cv > args.options.max_cv) ++noisy;
    batch.push_back(std::move(*record));
    ++measured;
    if (static_cast<int64_t>(batch.size()) >= args.flush_every) {
      Status flushed = flush();
      if (!flushed.ok()) return Fail(flushed);
    }
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double rate = measured / std::max(elapsed, 1e-9);
    progress.Show(fmt::format("{} {}/{} programs  {:.1f}/s  ETA {}  ({})", args.intrinsic, i + 1,
                              pending.size(), rate, FormatDuration((pending.size() - i - 1) / rate),
                              pending[i].task.key));
  }
  Status flushed = flush();
  progress.Finish();
  if (!flushed.ok()) return Fail(flushed);
  if (StopRequested()) {
    return Fail(Status::Busy("interrupted after " + std::to_string(measured) + " programs, all appended to " +
                             args.output + "; run the same command again to resume"));
  }
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  fmt::print("measured {} programs of {} ({} tasks of {}) in {:.1f}s ({:.1f} programs/s), {} noisy (cv > {}); "
             "{} were already in {}\n",
             measured, args.intrinsic, tasks->size(), args.suite, elapsed,
             measured / std::max(elapsed, 1e-9), noisy, args.options.max_cv, skipped, args.output);
  return 0;
}

}  // namespace

Command AddMeasureCommand(CLI::App& app, const GlobalOptions& global) {
  auto* sub = app.add_subcommand("measure", "Measure sampled programs of a task suite on this host (resumable)");
  auto args = std::make_shared<MeasureArgs>();
  sub->add_option("intrinsic", args->intrinsic, "Intrinsic to measure, e.g. x86.avx512")->required();
  sub->add_option("--tasks", args->suite, "Task suite of the intrinsic's plugin")->capture_default_str();
  sub->add_option("--per-task", args->per_task, "Sampled programs per task")->capture_default_str();
  sub->add_option("--max-tasks", args->max_tasks, "Only the suite's first N tasks (0: all)")->capture_default_str();
  sub->add_option("-o,--output", args->output, "JSONL file to append records to")->required();
  sub->add_option("--seed", args->seed, "Schedule sampling seed")->capture_default_str();
  sub->add_option("--min-seconds", args->options.min_repeat_seconds, "Minimum timed seconds per program")
      ->capture_default_str();
  sub->add_option("--min-repeats", args->options.min_repeats, "Minimum timed repeats (median over them)")
      ->capture_default_str();
  sub->add_option("--max-cv", args->options.max_cv, "Re-measure a program whose cv exceeds this")
      ->capture_default_str();
  sub->add_flag("-q,--quiet", args->quiet, "No progress bar");
  sub->add_option("--host", args->hosts,
                  "Measure on this host over ssh (USER@HOST or an ssh_config Host; repeat for several)");
  sub->add_option("--ssh-config", args->ssh_config, "ssh_config file for the hosts (ssh -F)");
  sub->add_option("--measurer-dir", args->measurer_dir,
                  "Where the ucmoh-measure-<arch> binaries are (default: beside this executable)");
  return {sub, [&global, args]() { return RunMeasure(global, *args); }};
}

}  // namespace ucmoh::cli
