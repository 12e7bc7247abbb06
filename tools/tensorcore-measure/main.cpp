// tensorcore-measure: times the tensorcore plugin's kernels on this host's
// NVIDIA GPU and writes one record per kernel that ran (docs/tensorcore.md,
// "Measuring on a GPU"). Built with nvcc where the CUDA toolkit is found;
// linked with the static CUDA runtime and libstdc++, so the binary runs on a
// GPU host that has only the driver.
//
//   tensorcore-measure -o OUT.jsonl [--suites resnet50,bert] [--intrinsics tensorcore.s16816,...]
//                      [--second-pass-every 10 --second-pass-out SECOND.jsonl] [--limit N]
//   tensorcore-measure --plan-only --arch sm_90     (no GPU needed: what would be measured)
//   tensorcore-measure --describe-gpu > PROFILE.csv.gpu.json   (this GPU, for `registry import cutlass`)
#include <CLI/CLI.hpp>

#include <chrono>
#include <ctime>
#include <cstdio>
#include <fstream>
#include <map>

#include "conv_measurer.h"
#include "gpu_architecture.h"
#include "gpu_hardware.h"
#include "measurement_plan.h"
#include "ucmoh/hardware_json.h"
#include "ucmoh/record_json.h"

namespace {

using namespace ucmoh;
using namespace ucmoh::tensorcore;
using namespace ucmoh::tensorcore::measure;

struct Args {
  PlanOptions plan;
  TimingProtocol protocol;
  std::string out, second_out, arch;
  int device = 0;
  size_t second_every = 0;
  size_t limit = 0;
  bool plan_only = false;
  bool describe_gpu = false;
};

int Fail(const std::string& message) {
  std::fprintf(stderr, "tensorcore-measure: %s\n", message.c_str());
  return 1;
}

std::string TodayUtc() {
  const std::time_t now = std::time(nullptr);
  char text[16];
  std::strftime(text, sizeof(text), "%Y-%m-%d", std::gmtime(&now));
  return text;
}

Record RecordOf(const PlannedMeasurement& planned, const Measurement& m, const HardwareParams& hw,
                const GpuDetails& gpu, const std::string& date, int pass) {
  Record record;
  record.target = "tensorcore";
  record.intrinsic = planned.kernel->intrinsic->info.name;
  record.task = planned.task;
  record.schedule = planned.schedule;
  record.latency = m.latency;
  record.provenance.kind = "measured";
  record.provenance.source = "tensorcore-measure";
  record.provenance.details = {{"device", hw.model},
                               {"kernel", planned.kernel->id},
                               {"kernel_source", std::string("ucmoh mma.sync implicit GEMM")},
                               {"iterations", m.iterations},
                               {"pass", static_cast<int64_t>(pass)},
                               {"memory_bytes", gpu.memory_bytes},
                               {"memory_clock_mhz", gpu.memory_clock_mhz},
                               {"cuda_runtime", static_cast<int64_t>(gpu.runtime_version)},
                               {"cuda_driver", static_cast<int64_t>(gpu.driver_version)},
                               {"date", date}};
  record.hardware = hw;
  return record;
}

// Measures `indices` of the plan into `out`, one flushed line per record.
int Run(const std::vector<PlannedMeasurement>& plan, const std::vector<size_t>& indices, const Args& args,
        const HardwareParams& hw, const std::string& path, int pass) {
  std::ofstream out(path, std::ios::trunc);
  if (!out) return Fail(path + ": cannot open for writing");
  ConvMeasurer measurer;
  const GpuDetails gpu = ReadGpuDetails(args.device);
  const std::string date = TodayUtc();
  std::map<std::string, int64_t> failures;
  int64_t written = 0;
  const auto start = std::chrono::steady_clock::now();
  for (size_t index : indices) {
    auto m = measurer.Measure(plan[index], args.protocol);
    if (!m.ok()) return Fail(m.status().message() + " (" + std::to_string(written) + " records kept in " + path + ")");
    if (!m->ran) {
      ++failures[m->failure.substr(0, m->failure.find(':'))];
      std::fprintf(stderr, "  %s %s: %s\n", plan[index].task.key.c_str(), plan[index].kernel->id.c_str(),
                   m->failure.c_str());
      continue;
    }
    out << RecordToJsonLine(RecordOf(plan[index], *m, hw, gpu, date, pass)) << '\n' << std::flush;
    ++written;
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::fprintf(stderr, "pass %d: %lld records in %s, %.1f s", pass, static_cast<long long>(written), path.c_str(),
               seconds);
  for (const auto& [reason, count] : failures) std::fprintf(stderr, "; %s %lld", reason.c_str(), (long long)count);
  std::fprintf(stderr, "\n");
  return out ? 0 : Fail(path + ": write failed");
}

int PlanOnly(const Args& args) {
  HardwareParams hw;
  hw.is_gpu = true;
  hw.flags = {args.arch};
  auto arch = ArchitectureOf(hw);
  if (!arch.ok()) return Fail("--arch: " + arch.status().message());
  auto plan = PlanMeasurements(args.plan, **arch);
  if (!plan.ok()) return Fail(plan.status().message());
  std::map<std::string, int64_t> per_intrinsic;
  for (const PlannedMeasurement& m : *plan) ++per_intrinsic[m.kernel->intrinsic->info.name];
  std::printf("%zu measurements on %s\n", plan->size(), args.arch.c_str());
  for (const auto& [name, count] : per_intrinsic) std::printf("%s %lld\n", name.c_str(), (long long)count);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"tensorcore-measure: times the tensorcore plugin's kernels on this host's NVIDIA GPU"};
  Args args;
  app.add_option("-o,--out", args.out, "Records (JSON Lines) of the first pass");
  app.add_option("--suites", args.plan.suites, "Task suites: resnet50, bert")->delimiter(',')->capture_default_str();
  app.add_option("--intrinsics", args.plan.intrinsics, "Only these intrinsics (default: every one the GPU has)")
      ->delimiter(',');
  app.add_option("--resnet50-batches", args.plan.resnet50_batches, "Images per ResNet-50 layer")
      ->delimiter(',')->capture_default_str();
  app.add_option("--bert-batches", args.plan.bert_batches, "Sequences of 128 tokens per BERT GEMM")
      ->delimiter(',')->capture_default_str();
  app.add_option("--device", args.device, "CUDA device index")->capture_default_str();
  app.add_option("--second-pass-every", args.second_every, "Re-measure every N-th planned kernel (10: 10 %)");
  app.add_option("--second-pass-out", args.second_out, "Records of the second pass");
  app.add_option("--limit", args.limit, "Only the plan's first N measurements (0: all)");
  app.add_option("--warmup", args.protocol.warmup, "Warm-up launches")->capture_default_str();
  app.add_option("--repeats", args.protocol.repeats, "Timed batches")->capture_default_str();
  app.add_option("--min-batch-ms", args.protocol.min_batch_ms, "Shortest timed batch")->capture_default_str();
  app.add_flag("--plan-only", args.plan_only, "Print what would be measured on --arch, touch no GPU");
  app.add_flag("--describe-gpu", args.describe_gpu,
               "Print this GPU's hardware as records carry it (save as PROFILE.csv.gpu.json beside CUTLASS "
               "profiler output, for `registry import cutlass`)");
  app.add_option("--arch", args.arch, "With --plan-only: sm_75, sm_80, sm_86, sm_89 or sm_90");
  CLI11_PARSE(app, argc, argv);

  if (args.plan_only) return PlanOnly(args);
  if (args.describe_gpu) {
    auto hw = ReadGpuHardware(args.device);
    if (!hw.ok()) return Fail(hw.status().message());
    std::printf("%s\n", HardwareToJson(*hw).dump(2).c_str());
    return 0;
  }
  if (args.out.empty()) return Fail("-o OUT.jsonl is required");
  if (args.second_every > 0 && args.second_out.empty()) return Fail("--second-pass-every needs --second-pass-out");
  auto hw = ReadGpuHardware(args.device);
  if (!hw.ok()) return Fail(hw.status().message());
  auto arch = ArchitectureOf(*hw);
  if (!arch.ok()) return Fail(arch.status().message());
  auto plan = PlanMeasurements(args.plan, **arch);
  if (!plan.ok()) return Fail(plan.status().message());
  std::vector<size_t> first;
  for (size_t i = 0; i < plan->size() && (args.limit == 0 || i < args.limit); ++i) first.push_back(i);
  std::fprintf(stderr, "%s: %zu of %zu planned measurements\n", hw->model.c_str(), first.size(), plan->size());
  if (const int rc = Run(*plan, first, args, *hw, args.out, 1)) return rc;
  if (args.second_every == 0) return 0;
  return Run(*plan, SecondPassIndices(first.size(), args.second_every, args.second_every / 2), args, *hw,
             args.second_out, 2);
}
