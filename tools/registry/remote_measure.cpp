#include "remote_measure.h"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <csignal>
#include <deque>
#include <filesystem>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <thread>

#include "cli_context.h"
#include "cli_progress.h"
#include "cli_stop.h"
#include "ssh_host.h"
#include "ucmoh/hardware_json.h"
#include "ucmoh/records_io.h"

namespace ucmoh::cli {

namespace {

// Programs a host takes from the queue at a time (all of one task): small
// enough to balance hosts and to append often, large enough that the pause
// between chunks is nothing next to measuring them.
constexpr int64_t kChunkPrograms = 16;

// A host ready to serve: its measurer installed, its hardware probed.
struct ReadyHost {
  SshHost ssh;
  std::string measurer;  // remote path of ucmoh-measure
  HardwareParams hardware;
};

std::string MeasurerDir(const MeasureRequest& args) {
  if (!args.measurer_dir.empty()) return args.measurer_dir;
  if (const char* env = std::getenv("UCMOH_MEASURER_DIR")) return env;
  std::error_code error;
  return std::filesystem::read_symlink("/proc/self/exe", error).parent_path().string();
}

std::string Trim(std::string text) {
  text.erase(text.find_last_not_of(" \t\r\n") + 1);
  return text;
}

// The probe's answer: the hardware records will carry, or why the host may not measure.
Expected<HardwareParams> ParseProbe(const SshHost& host, const std::string& text, const std::string& target) {
  const nlohmann::json probe = nlohmann::json::parse(text, nullptr, false);
  if (probe.is_discarded() || !probe.is_object() || !probe.contains("hardware"))
    return Status::Corruption("host " + host.name() + ": the measurer's probe is not JSON: " + Trim(text));
  if (probe.value("target", "") != target)
    return Status::InvalidArgument("host " + host.name() + " measures target '" + probe.value("target", "") +
                                   "', not " + target);
  if (!probe.value("can_measure", false))
    return Status::Unsupported("host " + host.name() + " cannot measure: " + probe.value("reason", ""));
  return HardwareFromJson(probe["hardware"]);
}

Expected<ReadyHost> PrepareHost(const std::string& name, const MeasureRequest& args, const std::string& target,
                                const std::string& control_dir) {
  ReadyHost host{SshHost(name, args.ssh_config, control_dir), "", {}};
  auto arch = host.ssh.Run("uname -m");
  if (!arch.ok()) return arch.status();
  if (Trim(*arch) != MeasurerArch(target))
    return Status::InvalidArgument("host " + name + " is " + Trim(*arch) + ", but " + args.intrinsic +
                                   " runs on " + MeasurerArch(target) + " hosts");
  const std::string binary = "ucmoh-measure-" + MeasurerArch(target);
  const std::string local = MeasurerDir(args) + "/" + binary;
  if (access(local.c_str(), X_OK) != 0)
    return Status::NotFound("there is no " + local + " to copy to host " + name +
                            " (tools/setup builds it; or give --measurer-dir)");
  auto installed = host.ssh.Install(local, binary);
  if (!installed.ok()) return installed.status();
  host.measurer = *installed;
  auto probe = host.ssh.Run(host.measurer + " probe " + args.intrinsic);
  if (!probe.ok()) return probe.status();
  auto hardware = ParseProbe(host.ssh, *probe, target);
  if (!hardware.ok()) return hardware.status();
  host.hardware = std::move(*hardware);
  return host;
}

// The programs to measure there (the host samples them, valid on its own
// hardware), less those already in the output file.
Expected<std::vector<Record>> PendingPrograms(const ReadyHost& host, const MeasureRequest& args,
                                              int64_t* already) {
  auto text = host.ssh.Run(fmt::format("{} plan {} --tasks {} --per-task {} --max-tasks {} --seed {}",
                                       host.measurer, args.intrinsic, args.suite, args.per_task, args.max_tasks,
                                       args.seed));
  if (!text.ok()) return text.status();
  auto done = ReadProgramKeys(args.output);
  if (!done.ok()) return done.status();
  std::vector<Record> pending;
  std::istringstream lines(*text);
  for (std::string line; std::getline(lines, line);) {
    auto program = ProgramFromJsonLine(line);
    if (!program.ok()) return program.status().WithContext("host " + host.ssh.name() + ": plan");
    program->hardware = host.hardware;
    if (done->count(ProgramKey(*program))) {
      ++*already;
    } else {
      pending.push_back(std::move(*program));
    }
  }
  return pending;
}

// Chunks of programs shared by the hosts. A host that fails puts its
// unfinished programs back, so Take waits while any chunk is still out.
class WorkQueue {
 public:
  WorkQueue(const std::vector<Record>& programs, int64_t chunk) {
    for (size_t i = 0; i < programs.size();) {
      std::vector<Record> next;
      const std::string& task = programs[i].task.key;
      while (i < programs.size() && programs[i].task.key == task && static_cast<int64_t>(next.size()) < chunk)
        next.push_back(programs[i++]);
      chunks_.push_back(std::move(next));
    }
  }
  std::optional<std::vector<Record>> Take() {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return !chunks_.empty() || out_ == 0; });
    // After SIGINT / SIGTERM no host takes a new chunk (Ctrl-C also reaches
    // the ssh children, whose hosts then stop at once).
    if (chunks_.empty() || StopRequested()) return std::nullopt;
    ++out_;
    std::vector<Record> chunk = std::move(chunks_.front());
    chunks_.pop_front();
    return chunk;
  }
  // The chunk is done; `unfinished` (its tail a failed host did not measure) goes back.
  void Return(std::vector<Record> unfinished) {
    std::lock_guard<std::mutex> lock(mutex_);
    --out_;
    if (!unfinished.empty()) chunks_.push_front(std::move(unfinished));
    changed_.notify_all();
  }
  int64_t Left() {
    std::lock_guard<std::mutex> lock(mutex_);
    int64_t left = 0;
    for (const auto& chunk : chunks_) left += static_cast<int64_t>(chunk.size());
    return left;
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::vector<Record>> chunks_;
  int64_t out_ = 0;
};

// The output file, appended to by every host's worker, and the progress line.
class RecordSink {
 public:
  RecordSink(const MeasureRequest& request, int64_t total)
      : request_(request), total_(total), progress_(!request.quiet) {}
  Status Append(const std::vector<Record>& records) {
    std::lock_guard<std::mutex> lock(mutex_);
    UCMOH_RETURN_IF_ERROR(AppendRecords(request_.output, records));
    written_ += static_cast<int64_t>(records.size());
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    const double rate = written_ / std::max(elapsed, 1e-9);
    progress_.Show(fmt::format("{} {}/{} programs on {} hosts  {:.1f}/s  ETA {}", request_.intrinsic, written_,
                               total_, request_.hosts.size(), rate, FormatDuration((total_ - written_) / rate)));
    return Status::Ok();
  }
  void Finish() { progress_.Finish(); }

 private:
  std::mutex mutex_;
  const MeasureRequest& request_;
  const int64_t total_;
  int64_t written_ = 0;
  ProgressLine progress_;
  const std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

struct HostOutcome {
  int64_t measured = 0;
  Status status;
};

std::string ServeCommand(const ReadyHost& host, const MeasureRequest& args) {
  return fmt::format("{} serve {} --min-seconds {} --min-repeats {} --max-cv {}", host.measurer, args.intrinsic,
                     args.options.min_repeat_seconds, args.options.min_repeats, args.options.max_cv);
}

// One chunk through the session: programs out, one record back per
// program, each checked to be the program sent. Records measured before a
// failure are kept; the rest of the chunk is returned in `unfinished`.
Status ServeChunk(SshSession& session, const ReadyHost& host, const std::vector<Record>& chunk,
                  RecordSink& sink, HostOutcome& outcome, std::vector<Record>& unfinished) {
  std::string text;
  for (const Record& program : chunk) text += ProgramToJsonLine(program) + "\n";
  std::vector<Record> measured;
  Status status = session.Write(text + "\n") ? Status::Ok() : session.Failure();
  for (size_t i = 0; status.ok() && i < chunk.size(); ++i) {
    std::string line;
    if (!session.ReadLine(line)) {
      status = session.Failure();
      break;
    }
    auto record = RecordFromJsonLine(line);
    if (!record.ok() || ProgramKey(*record) != ProgramKey(chunk[i])) {
      status = session.Abort(Status::Corruption("host " + host.ssh.name() + " sent a record that is not of the " +
                                                "program it was given: " + line.substr(0, 200)));
      break;
    }
    record->provenance.details["measured_over_ssh"] = host.ssh.name();
    measured.push_back(std::move(*record));
  }
  unfinished.assign(chunk.begin() + static_cast<std::ptrdiff_t>(measured.size()), chunk.end());
  Status appended = sink.Append(measured);
  outcome.measured += static_cast<int64_t>(measured.size());
  return appended.ok() ? status : appended;
}

HostOutcome RunHost(const ReadyHost& host, const MeasureRequest& args, WorkQueue& queue, RecordSink& sink) {
  HostOutcome outcome;
  auto session = SshSession::Start(host.ssh, ServeCommand(host, args));
  if (!session.ok()) {
    outcome.status = session.status();
    return outcome;
  }
  while (auto chunk = queue.Take()) {
    std::vector<Record> unfinished;
    outcome.status = ServeChunk(**session, host, *chunk, sink, outcome, unfinished);
    queue.Return(std::move(unfinished));
    if (!outcome.status.ok()) return outcome;
  }
  outcome.status = (*session)->Finish();
  return outcome;
}

// Prepares every host; they must all be the same machine, since the
// programs are planned once and records name their hardware.
Expected<std::vector<ReadyHost>> PrepareHosts(const MeasureRequest& args, const std::string& target,
                                              const std::string& control_dir) {
  std::vector<ReadyHost> hosts;
  for (const std::string& name : args.hosts) {
    auto host = PrepareHost(name, args, target, control_dir);
    if (!host.ok()) return host.status();
    if (!hosts.empty() && HardwareKey(host->hardware) != HardwareKey(hosts.front().hardware)) {
      return Status::InvalidArgument("hosts " + hosts.front().ssh.name() + " and " + name +
                                     " are different machines (" + hosts.front().hardware.model + ", " +
                                     host->hardware.model + "): measure each kind in a run of its own");
    }
    hosts.push_back(std::move(*host));
  }
  return hosts;
}

int Report(const MeasureRequest& args, const std::vector<ReadyHost>& hosts,
           const std::vector<HostOutcome>& outcomes, int64_t left, int64_t already, double seconds) {
  int64_t measured = 0, failed = 0;
  std::string per_host;
  for (size_t h = 0; h < hosts.size(); ++h) {
    measured += outcomes[h].measured;
    per_host += fmt::format("{}{}: {}", per_host.empty() ? "" : ", ", hosts[h].ssh.name(), outcomes[h].measured);
    if (!outcomes[h].status.ok()) {
      ++failed;
      fmt::print(stderr, "warning: {} (its unfinished programs went back to the other hosts)\n",
                 outcomes[h].status.message());
    }
  }
  fmt::print("measured {} programs of {} on {} hosts ({}) in {} ({:.1f} programs/s); {} were already in {}\n",
             measured, args.intrinsic, hosts.size(), per_host, FormatDuration(seconds),
             measured / std::max(seconds, 1e-9), already, args.output);
  if (left == 0) return 0;
  const std::string why = StopRequested() ? "interrupted" : fmt::format("{} of {} hosts failed", failed, hosts.size());
  return Fail(Status::Busy(fmt::format("{} programs not measured ({}); every record measured is in {}; run the same "
                                       "command again to resume",
                                       left, why, args.output)));
}

}  // namespace

std::string MeasurerArch(const std::string& target) {
  if (target == "x86") return "x86_64";
  if (target == "arm") return "aarch64";
  return "";
}

Status WithRemoteMeasureHint(const Status& status, const PluginSet& plugins, const std::string& intrinsic) {
  const LoadedPlugin* plugin = plugins.ForIntrinsic(intrinsic);
  if (status.code() != Status::Code::kNotFound || !plugin || MeasurerArch(plugin->target.name).empty() ||
      status.message().find("no records") == std::string::npos) {
    return status;
  }
  return Status::NotFound(status.message() + "; or measure them on a host that has " + intrinsic +
                          ": `registry measure " + intrinsic + " --host USER@HOST -o FILE.jsonl` (docs/arm.md)");
}

int RunRemoteMeasure(const MeasureRequest& args, const std::string& target) {
  std::signal(SIGPIPE, SIG_IGN);  // a host that dies closes its pipe: an error to handle, not a signal
  StopOnSignals();
  const SshControlDir control;
  auto hosts = PrepareHosts(args, target, control.path());
  if (!hosts.ok()) return Fail(hosts.status());
  int64_t already = 0;
  auto pending = PendingPrograms(hosts->front(), args, &already);
  if (!pending.ok()) return Fail(pending.status());
  if (pending->empty()) {
    fmt::print("nothing to measure: all {} programs of {} are already in {}\n", already, args.intrinsic, args.output);
    return 0;
  }
  WorkQueue queue(*pending, kChunkPrograms);
  RecordSink sink(args, static_cast<int64_t>(pending->size()));
  std::vector<HostOutcome> outcomes(hosts->size());
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> workers;
  for (size_t h = 0; h < hosts->size(); ++h)
    workers.emplace_back([&, h] { outcomes[h] = RunHost((*hosts)[h], args, queue, sink); });
  for (std::thread& worker : workers) worker.join();
  sink.Finish();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return Report(args, *hosts, outcomes, queue.Left(), already, seconds);
}

}  // namespace ucmoh::cli
