// The x86 micro-kernels and blocked driver: every sampled schedule's output
// equals a reference GEMM (bit-exact for int8 and fp32, within the summation
// error bound for bf16), the driver does exactly what the lowered AST
// says, and measurement writes valid, resumable records. The kernel tests run
// once per intrinsic: where this CPU lacks the ISA, that instance is skipped
// and says which flag is missing; where it has it, the instance must check at
// least one program.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "ucmoh/cpu_gemm/gemm_lowering.h"
#include "ucmoh/cpu_gemm/schedule_sampler.h"
#include "ucmoh/records_io.h"
#include "ucmoh/cpu_gemm/gemm_driver.h"
#include "ucmoh/cpu_gemm/gemm_operands.h"
#include "ucmoh/cpu_gemm/host_cpu.h"
#include "ucmoh/cpu_gemm/kernel_sweep.h"
#include "ucmoh/cpu_gemm/latency_timer.h"
#include "ucmoh/cpu_gemm/reference_gemm.h"
#include "ucmoh/cpu_gemm/thread_team.h"
#include "ucmoh/x86/host_hardware.h"
#include "ucmoh/x86/micro_kernels.h"
#include "ucmoh/x86/x86_plugin.h"

namespace ucmoh::x86 {
namespace {

using cpu_gemm::CheckAgainstReference;
using cpu_gemm::GemmOperands;
using cpu_gemm::GemmPlan;
using cpu_gemm::GemmProblem;
using cpu_gemm::GemmRunCounts;
using cpu_gemm::GemmRunner;
using cpu_gemm::GemmSchedule;
using cpu_gemm::HostCores;
using cpu_gemm::MakeGemmOperands;
using cpu_gemm::SummarizeSamples;
using cpu_gemm::ThreadTeam;
using cpu_gemm::TimeProgram;
using cpu_gemm::TimingResult;

KernelFn FindMicroKernel(const std::string& intrinsic, int64_t mr, int64_t nr_vec, int64_t k_unroll) {
  return ::ucmoh::x86::X86Kernels().find(intrinsic, mr, nr_vec, k_unroll);
}
bool CpuSupportsIntrinsic(const std::string& intrinsic) { return ::ucmoh::x86::X86Kernels().cpu_supports(intrinsic); }

const std::vector<std::string> kIntrinsics = {"x86.avx2", "x86.avx512", "x86.vnni", "x86.bf16"};

const X86Plugin& Host() {
  static const X86Plugin plugin;
  return plugin;
}

ThreadTeam& Team() {
  static ThreadTeam team(static_cast<int>(HostCores()));
  return team;
}

Task GemmTask(int64_t m, int64_t n, int64_t k, int64_t batch = 1) {
  Task task;
  task.key = "test.m" + std::to_string(m) + "_n" + std::to_string(n) + "_k" + std::to_string(k) + "_b" +
             std::to_string(batch);
  task.op = "gemm";
  task.workload = {{"m", m}, {"n", n}, {"k", k}, {"batch", batch}};
  return task;
}

// Odd and even shapes, tails in every dimension (not multiples of any tile,
// k not a multiple of the k-group), one batched.
const std::vector<GemmProblem> kShapes = {
    {37, 45, 29, 1}, {64, 48, 32, 1}, {1, 17, 3, 1}, {50, 100, 61, 2}, {23, 160, 130, 1}, {96, 33, 7, 1},
};

TEST(X86KernelTable, CoversExactlyTheRegisterBudget) {
  for (const std::string& name : kIntrinsics) {
    const int64_t registers = name == "x86.avx2" ? 16 : 32;
    for (int64_t nr_vec = 1; nr_vec <= 16; ++nr_vec) {
      for (int64_t mr = 1; mr <= 32; ++mr) {
        const bool fits = mr * nr_vec + nr_vec + 1 <= registers;
        for (int64_t unroll : {1, 2, 4, 8}) {
          EXPECT_EQ(FindMicroKernel(name, mr, nr_vec, unroll) != nullptr, fits)
              << name << " mr=" << mr << " nr_vec=" << nr_vec << " k_unroll=" << unroll;
        }
      }
    }
    EXPECT_EQ(FindMicroKernel(name, 1, 1, 3), nullptr);
  }
  EXPECT_EQ(FindMicroKernel("x86.sse", 1, 1, 1), nullptr);
}

// Why this CPU cannot run `name`'s kernels, or "" when it can. The kernels
// run where __builtin_cpu_supports says so (CpuSupportsIntrinsic); the
// plugin's CanMeasure names the flag that is missing.
std::string MissingIsa(const std::string& name) {
  if (CpuSupportsIntrinsic(name)) return "";
  const Status why = Host().CanMeasure(name);
  return why.ok() ? "this CPU lacks " + name + " (__builtin_cpu_supports)" : why.message();
}

// One instance per intrinsic: it runs where this CPU has the ISA, and is
// skipped, with the missing flag as the reason, where it does not.
class X86Kernels : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    const std::string missing = MissingIsa(GetParam());
    if (!missing.empty()) GTEST_SKIP() << missing;
  }
};

// The plugin's own answer and the CPU's must agree, or a host would measure
// what its kernels cannot run (or skip what they can).
TEST(X86KernelHost, CanMeasureAgreesWithTheCpu) {
  for (const std::string& name : kIntrinsics) {
    EXPECT_EQ(Host().CanMeasure(name).ok(), CpuSupportsIntrinsic(name)) << name;
  }
}

// The sweep (kernel_sweep.h, the same one ucmoh-measure `check` runs for
// aarch64 under emulation): 120 sampled schedules over shapes with tails in
// every dimension, each checked against the reference.
TEST_P(X86Kernels, EverySampledScheduleMatchesTheReference) {
  const std::string& name = GetParam();
  auto profile = Host().Profile(name, Host().Target().hardware);
  ASSERT_TRUE(profile.ok()) << profile.status().message();
  auto result = cpu_gemm::SweepKernels(*profile, ::ucmoh::x86::X86Kernels(), cpu_gemm::SweepShapes(), 120, 7, Team());
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_EQ(result->schedules, 120) << name;
  EXPECT_EQ(result->shapes, static_cast<int64_t>(cpu_gemm::SweepShapes().size())) << name;
  EXPECT_EQ(result->mismatches, 0) << name << ": " << result->first_mismatch;
}


// The checker itself: one wrong element of C (one unit for int8, one ulp for
// fp32, 1% for bf16) is caught.
TEST_P(X86Kernels, ReferenceCheckCatchesOneWrongElement) {
  const std::string& name = GetParam();
  auto profile = Host().Profile(name, Host().Target().hardware);
  ASSERT_TRUE(profile.ok());
  const GemmProblem problem{19, 40, 33, 1};
  auto operands = MakeGemmOperands(problem, *profile, 11);
  ASSERT_TRUE(operands.ok());
  auto schedules = cpu_gemm::SampleGemmSchedules(problem, *profile, 1, 4);
  ASSERT_TRUE(schedules.ok());
  ASSERT_EQ(schedules->size(), 1u);
  auto plan = cpu_gemm::MakeGemmPlan(problem, schedules->front(), *profile);
  ASSERT_TRUE(plan.ok());
  auto runner = GemmRunner::Create(*plan, *operands, ::ucmoh::x86::X86Kernels());
  ASSERT_TRUE(runner.ok());
  (*runner)->Run(Team());
  ASSERT_EQ(CheckAgainstReference(**operands, nullptr), 0) << name;
  uint8_t* c = (*operands)->C(0) + (7 * problem.n + 31) * 4;
  int32_t bits;
  std::memcpy(&bits, c, 4);
  if (profile->input_bytes == 2) {
    float v;  // bf16: 1% of the value plus 0.01, well beyond the bound here
    std::memcpy(&v, c, 4);
    v += 0.01f * (std::fabs(v) + 1.0f);
    std::memcpy(c, &v, 4);
  } else {
    bits += 1;  // one unit (int8) or one ulp (fp32)
    std::memcpy(c, &bits, 4);
  }
  EXPECT_EQ(CheckAgainstReference(**operands, nullptr), 1) << name;
}

INSTANTIATE_TEST_SUITE_P(Isa, X86Kernels, ::testing::ValuesIn(kIntrinsics),
                         [](const auto& info) { return info.param.substr(4); });

// Executions of every stage named `name`: the product of its enclosing extents.
double StageExecutions(const std::vector<AstNode>& nodes, const std::string& name, double outer) {
  double total = 0;
  for (const AstNode& node : nodes) {
    if (node.is_loop) {
      total += StageExecutions(node.children, name, outer * static_cast<double>(node.loop.extent));
    } else if (node.stage.name == name) {
      total += outer;
    }
  }
  return total;
}

// The driver's counts, for the fp32 intrinsics (one k step per FMA); the
// k-group kernels (vnni, bf16) share the driver and are checked against the
// reference above.
class X86Driver : public X86Kernels {};

// The AST the plugin lowers is what the driver runs: same micro-kernel calls,
// k steps and panel packs, for a spread of schedules with tails and threads.
TEST_P(X86Driver, RunsExactlyTheLoweredProgram) {
  auto profile = Host().Profile(GetParam(), Host().Target().hardware);
  ASSERT_TRUE(profile.ok());
  int64_t compared = 0;
  for (const GemmProblem& problem : kShapes) {
    auto operands = MakeGemmOperands(problem, *profile, 3);
    ASSERT_TRUE(operands.ok());
    auto schedules = cpu_gemm::SampleGemmSchedules(problem, *profile, 10, 99);
    ASSERT_TRUE(schedules.ok());
    for (const GemmSchedule& s : *schedules) {
      auto plan = cpu_gemm::MakeGemmPlan(problem, s, *profile);
      ASSERT_TRUE(plan.ok());
      auto runner = GemmRunner::Create(*plan, *operands, ::ucmoh::x86::X86Kernels());
      ASSERT_TRUE(runner.ok());
      (*runner)->Run(Team());
      const GemmRunCounts counts = (*runner)->LastCounts();
      const ProgramAst ast = *cpu_gemm::LowerGemm(*plan);
      const std::string what = CanonicalString(cpu_gemm::ToParams(s));
      EXPECT_EQ(StageExecutions(ast.roots, "load_C", 1), counts.kernel_calls) << what;
      EXPECT_EQ(StageExecutions(ast.roots, "store_C", 1), counts.kernel_calls) << what;
      EXPECT_EQ(StageExecutions(ast.roots, "load_A", 1), counts.k_steps) << what;
      EXPECT_EQ(StageExecutions(ast.roots, "pack_A", 1), counts.pack_a) << what;
      EXPECT_EQ(StageExecutions(ast.roots, "pack_B", 1), counts.pack_b) << what;
      ++compared;
    }
  }
  ASSERT_GT(compared, 0) << GetParam() << ": no program was compared";
}

INSTANTIATE_TEST_SUITE_P(Isa, X86Driver, ::testing::Values("x86.avx2", "x86.avx512"),
                         [](const auto& info) { return info.param.substr(4); });

TEST(X86Timer, RepeatsUntilBothMinimaAndSummarizes) {
  MeasureOptions options;
  options.min_repeats = 7;
  options.min_repeat_seconds = 0.02;
  volatile double sink = 0;
  const TimingResult t = TimeProgram([&] { for (int i = 0; i < 20000; ++i) sink = sink + i; }, options);
  EXPECT_GE(t.stats.repeats, 7);
  EXPECT_GT(t.stats.median_s, 0);
  EXPECT_LE(t.stats.min_s, t.stats.median_s);
  EXPECT_GE(t.stats.repeats * t.runs_per_repeat * t.stats.mean_s, 0.02 * 0.9);

  const LatencyStats s = SummarizeSamples({3, 1, 2, 4});
  EXPECT_DOUBLE_EQ(s.median_s, 2.5);
  EXPECT_DOUBLE_EQ(s.min_s, 1);
  EXPECT_DOUBLE_EQ(s.mean_s, 2.5);
  EXPECT_NEAR(s.cv, std::sqrt(5.0 / 3.0) / 2.5, 1e-12);
}

TEST(X86Measure, RecordCarriesLatencyAndProvenance) {
  const std::string name = "x86.avx2";
  const Status can = Host().CanMeasure(name);
  if (!can.ok()) GTEST_SKIP() << can.message();
  const Task task = GemmTask(96, 64, 80);
  auto profile = Host().Profile(name, Host().Target().hardware);
  auto params = Host().SampleSchedules(task, name, 1, 5);
  ASSERT_TRUE(params.ok());
  MeasureOptions options;
  options.min_repeat_seconds = 0.005;
  auto record = Host().Measure(task, name, params->front(), options);
  ASSERT_TRUE(record.ok()) << record.status().message();
  EXPECT_EQ(record->target, "x86");
  EXPECT_EQ(record->intrinsic, name);
  EXPECT_GT(record->latency.median_s, 0);
  EXPECT_GE(record->latency.repeats, 5);
  EXPECT_EQ(record->provenance.kind, "measured");
  for (const char* key : {"cpu_model", "cpu_flags", "cores_used", "compiler", "compile_flags", "date",
                          "cpus_pinned", "noisy", "remeasured"}) {
    EXPECT_TRUE(record->provenance.details.count(key)) << key;
  }
  // The record survives JSONL.
  auto back = RecordFromJsonLine(RecordToJsonLine(*record));
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(ProgramKey(*back), ProgramKey(*record));
}

TEST(X86Measure, RefusesAnIntrinsicTheCpuLacks) {
  HardwareParams old_cpu;
  old_cpu.model = "an old x86 without AVX-512";
  old_cpu.cores = 1;
  old_cpu.flags = {"sse2", "avx", "avx2", "fma"};
  const X86Plugin plugin(old_cpu);
  const Task task = GemmTask(32, 32, 32);
  auto params = plugin.SampleSchedules(task, "x86.vnni", 1, 1);
  ASSERT_TRUE(params.ok());
  auto record = plugin.Measure(task, "x86.vnni", params->front(), MeasureOptions{});
  ASSERT_FALSE(record.ok());
  EXPECT_EQ(record.status().code(), Status::Code::kUnsupported);
  EXPECT_NE(record.status().message().find("avx512f"), std::string::npos) << record.status().message();
}

std::vector<std::string> ReadLines(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// `registry measure` writes N per task, and a second run resumes to nothing.
TEST(X86MeasureCli, SecondRunAddsNothing) {
  const Status can = Host().CanMeasure("x86.avx2");
  if (!can.ok()) GTEST_SKIP() << can.message();
  const std::string out = std::string(::testing::TempDir()) + "x86_measure_cli.jsonl";
  std::remove(out.c_str());
  const std::string command = std::string(UCMOH_BINARY_DIR) + "/bin/registry --plugins " + UCMOH_SOURCE_DIR +
                              "/plugins.json measure x86.avx2 --tasks mobilenetv2 --max-tasks 2 --per-task 3 "
                              "--min-seconds 0.002 -o " + out + " 2>&1";
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  const std::vector<std::string> first = ReadLines(out);
  EXPECT_EQ(first.size(), 6u);
  auto records = ReadRecordsFile(out);
  ASSERT_TRUE(records.ok()) << records.status().message();
  ASSERT_EQ(records->size(), 6u);
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  EXPECT_EQ(ReadLines(out), first);

  // An intrinsic the plugin does not have: one-line error, non-zero exit.
  const std::string bad = std::string(UCMOH_BINARY_DIR) + "/bin/registry --plugins " + UCMOH_SOURCE_DIR +
                          "/plugins.json measure x86.nope --tasks resnet50 --per-task 1 -o " + out +
                          ".bad > /dev/null 2>&1";
  EXPECT_NE(std::system(bad.c_str()), 0);
  std::remove(out.c_str());
}

}  // namespace
}  // namespace ucmoh::x86
