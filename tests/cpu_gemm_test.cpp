// The CPU GEMM schedule family (plugins/cpu_gemm) and the x86 and arm target
// plugins built on it: schedules <-> ParamMap, validation, sampling, lowering,
// task suites, host hardware and CanMeasure.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "ucmoh/arm/arm_plugin.h"
#include "ucmoh/cpu_gemm/gemm_lowering.h"
#include "ucmoh/cpu_gemm/host_cpu.h"
#include "ucmoh/cpu_gemm/gemm_plan.h"
#include "ucmoh/cpu_gemm/gemm_schedule.h"
#include "ucmoh/cpu_gemm/gemm_task_suites.h"
#include "ucmoh/cpu_gemm/schedule_sampler.h"
#include "ucmoh/cpu_gemm/schedule_validation.h"
#include "ucmoh/features.h"
#include "ucmoh/x86/host_hardware.h"
#include "ucmoh/x86/x86_intrinsics.h"
#include "ucmoh/x86/x86_plugin.h"

namespace ucmoh {
namespace {

using cpu_gemm::GemmDim;
using cpu_gemm::GemmSchedule;

// A machine with enough cores that thread counts are not what a test trips on.
HardwareParams TestMachine() {
  HardwareParams hw;
  hw.model = "test machine";
  hw.cores = 16;
  hw.l1_bytes = 48 * 1024;
  hw.l2_bytes = 2 * 1024 * 1024;
  hw.l3_bytes = 32 * 1024 * 1024;
  hw.flags = {"avx2", "fma", "avx512f"};
  return hw;
}

const x86::X86Plugin& TestX86() {
  static const x86::X86Plugin plugin(TestMachine());
  return plugin;
}

const arm::ArmPlugin& Arm() {
  static const arm::ArmPlugin plugin;
  return plugin;
}

// Every (plugin, intrinsic) pair of both CPU targets.
std::vector<std::pair<const cpu_gemm::CpuGemmPlugin*, IntrinsicInfo>> AllIntrinsics() {
  std::vector<std::pair<const cpu_gemm::CpuGemmPlugin*, IntrinsicInfo>> all;
  for (const cpu_gemm::CpuGemmPlugin* plugin :
       {static_cast<const cpu_gemm::CpuGemmPlugin*>(&TestX86()),
        static_cast<const cpu_gemm::CpuGemmPlugin*>(&Arm())}) {
    for (const IntrinsicInfo& info : plugin->Intrinsics()) all.emplace_back(plugin, info);
  }
  EXPECT_EQ(all.size(), 6u) << "x86's four and arm's two";
  return all;
}

Task GemmTask(int64_t m, int64_t n, int64_t k, int64_t batch = 1) {
  Task task;
  task.key = "test.m" + std::to_string(m) + "_n" + std::to_string(n) + "_k" + std::to_string(k);
  task.op = "gemm";
  task.workload = {{"m", m}, {"n", n}, {"k", k}, {"batch", batch}};
  return task;
}

// BLIS-like fp32 schedule for x86.avx512: 6 x 2 vectors (12 accumulators + 3 operands).
GemmSchedule Avx512Schedule() {
  GemmSchedule s;
  s.mr = 6;
  s.nr_vec = 2;
  s.mc = 72;
  s.nc = 256;
  s.kc = 256;
  s.loop_order = {GemmDim::kN, GemmDim::kK, GemmDim::kM};
  s.pack_a = true;
  s.pack_b = true;
  s.k_unroll = 4;
  s.threads = 2;
  s.parallel = GemmDim::kN;
  return s;
}

// Walks the AST with the product of the enclosing loop extents.
void VisitStages(const AstNode& node, double iterations,
                 const std::function<void(const Stage&, double)>& visit) {
  if (!node.is_loop) {
    visit(node.stage, iterations);
    return;
  }
  for (const AstNode& child : node.children) {
    VisitStages(child, iterations * static_cast<double>(node.loop.extent), visit);
  }
}

void VisitStages(const ProgramAst& ast, const std::function<void(const Stage&, double)>& visit) {
  for (const AstNode& root : ast.roots) VisitStages(root, 1.0, visit);
}

double TotalFlops(const ProgramAst& ast) {
  double flops = 0;
  VisitStages(ast, [&](const Stage& s, double iterations) {
    if (s.kind == StageKind::kCompute) flops += s.intrinsic_calls * s.flops_per_call * iterations;
  });
  return flops;
}

int CountLoops(const AstNode& node, LoopKind kind) {
  if (!node.is_loop) return 0;
  int count = node.loop.kind == kind ? 1 : 0;
  for (const AstNode& child : node.children) count += CountLoops(child, kind);
  return count;
}

int64_t RoundUp(int64_t value, int64_t multiple) { return (value + multiple - 1) / multiple * multiple; }

// ---------------------------------------------------------------- schedules

TEST(CpuGemmSchedule, ParamMapRoundTrip) {
  const GemmSchedule s = Avx512Schedule();
  const ParamMap params = cpu_gemm::ToParams(s);
  EXPECT_EQ(params.size(), cpu_gemm::kScheduleKeys.size());
  EXPECT_EQ(std::get<std::string>(params.at("loop_order")), "nkm");
  EXPECT_EQ(std::get<std::string>(params.at("packing")), "ab");
  EXPECT_EQ(std::get<std::string>(params.at("parallel")), "n");
  auto back = cpu_gemm::ScheduleFromParams(params);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(CanonicalString(cpu_gemm::ToParams(*back)), CanonicalString(params));
  EXPECT_EQ(back->mr, 6);
  EXPECT_EQ(back->loop_order[2], GemmDim::kM);
  EXPECT_TRUE(back->pack_a && back->pack_b);
}

TEST(CpuGemmSchedule, EveryPackingAndOrderRoundTrips) {
  for (const char* packing : {"none", "a", "b", "ab"}) {
    for (const char* order : {"mnk", "mkn", "nmk", "nkm", "kmn", "knm"}) {
      ParamMap params = cpu_gemm::ToParams(Avx512Schedule());
      params["packing"] = std::string(packing);
      params["loop_order"] = std::string(order);
      auto parsed = cpu_gemm::ScheduleFromParams(params);
      ASSERT_TRUE(parsed.ok()) << parsed.status().message();
      EXPECT_EQ(parsed->PackingString(), packing);
      EXPECT_EQ(parsed->LoopOrderString(), order);
    }
  }
}

// The error of parsing `params` and then validating for x86.avx512 must name `key`.
void ExpectRejectedNaming(const ParamMap& params, const std::string& key) {
  auto profile = TestX86().Profile("x86.avx512", TestX86().Target().hardware);
  ASSERT_TRUE(profile.ok());
  Status status;
  auto parsed = cpu_gemm::ScheduleFromParams(params);
  if (!parsed.ok()) {
    status = parsed.status();
  } else {
    status = cpu_gemm::ValidateScheduleForProblem(*parsed, *profile, cpu_gemm::GemmProblem{512, 512, 512, 1});
  }
  ASSERT_FALSE(status.ok()) << "expected a rejection naming '" << key << "'";
  EXPECT_EQ(status.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(status.message().find("'" + key + "'"), std::string::npos) << status.message();
}

ParamMap With(const std::string& key, Param value) {
  ParamMap params = cpu_gemm::ToParams(Avx512Schedule());
  params[key] = std::move(value);
  return params;
}

TEST(CpuGemmSchedule, InvalidSchedulesNameTheKey) {
  // 8 x 4 = 32 accumulators + 5 operand registers > 32 zmm registers.
  ParamMap over_budget = With("mr", int64_t{8});
  over_budget["nr_vec"] = int64_t{4};
  over_budget["mc"] = int64_t{64};
  over_budget["nc"] = int64_t{256};
  ExpectRejectedNaming(over_budget, "mr");
  ExpectRejectedNaming(With("loop_order", std::string("nkk")), "loop_order");
  ExpectRejectedNaming(With("loop_order", std::string("nk")), "loop_order");
  ExpectRejectedNaming(With("mc", int64_t{0}), "mc");
  ExpectRejectedNaming(With("nc", int64_t{0}), "nc");
  ExpectRejectedNaming(With("kc", int64_t{0}), "kc");
  ExpectRejectedNaming(With("mc", int64_t{70}), "mc");   // not a multiple of mr = 6
  ExpectRejectedNaming(With("nc", int64_t{48}), "nc");   // not a multiple of nr = 32
  ExpectRejectedNaming(With("kc", int64_t{258}), "kc");  // not a multiple of k_unroll = 4
  ExpectRejectedNaming(With("k_unroll", int64_t{3}), "k_unroll");
  ExpectRejectedNaming(With("packing", std::string("c")), "packing");
  ExpectRejectedNaming(With("parallel", std::string("k")), "parallel");
  ExpectRejectedNaming(With("threads", int64_t{0}), "threads");
  ExpectRejectedNaming(With("threads", int64_t{17}), "threads");  // > 16 cores
  ExpectRejectedNaming(With("mr", std::string("six")), "mr");     // mistyped
  ExpectRejectedNaming(With("unroll", int64_t{2}), "unroll");     // unknown
  ParamMap missing = cpu_gemm::ToParams(Avx512Schedule());
  missing.erase("kc");
  ExpectRejectedNaming(missing, "kc");
}

TEST(CpuGemmSchedule, RegisterBudgetFollowsTheIsa) {
  GemmSchedule s = Avx512Schedule();
  s.mr = 6;
  s.nr_vec = 4;  // 24 accumulators + 5 operands: fits 32 zmm, not 16 ymm
  s.mc = 72;
  s.nc = 512;
  s.threads = 1;
  auto avx512 = TestX86().Profile("x86.avx512", TestX86().Target().hardware);
  ASSERT_TRUE(avx512.ok());
  EXPECT_TRUE(cpu_gemm::ValidateSchedule(s, *avx512).ok());
  auto avx2 = TestX86().Profile("x86.avx2", TestX86().Target().hardware);
  ASSERT_TRUE(avx2.ok());
  s.nc = 256;  // a multiple of nr = 4 * 8
  const Status status = cpu_gemm::ValidateSchedule(s, *avx2);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("'mr'"), std::string::npos) << status.message();
  // BLIS's haswell kernel, 6 x 16 fp32 = 6 x 2 ymm: 12 + 3 = 15 <= 16.
  s.nr_vec = 2;
  s.nc = 256;
  EXPECT_TRUE(cpu_gemm::ValidateSchedule(s, *avx2).ok());
}

TEST(CpuGemmSchedule, ThreadsMustSplitTheParallelDimensionEvenly) {
  auto profile = TestX86().Profile("x86.avx512", TestX86().Target().hardware);
  ASSERT_TRUE(profile.ok());
  GemmSchedule s = Avx512Schedule();  // parallel n, nr = 32
  s.threads = 4;
  EXPECT_TRUE(cpu_gemm::ValidateScheduleForProblem(s, *profile, {64, 128, 64, 1}).ok());  // 4 tiles
  const Status status = cpu_gemm::ValidateScheduleForProblem(s, *profile, {64, 96, 64, 1});  // 3 tiles
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("'threads'"), std::string::npos) << status.message();
}

// ---------------------------------------------------------------- sampling

TEST(CpuGemmSampling, ReproducibleDistinctAndValid) {
  const Task task = GemmTask(3136, 64, 576);
  for (const auto& [plugin, intrinsic] : AllIntrinsics()) {
    auto first = plugin->SampleSchedules(task, intrinsic.name, 200, 42);
    auto again = plugin->SampleSchedules(task, intrinsic.name, 200, 42);
    auto other = plugin->SampleSchedules(task, intrinsic.name, 200, 43);
    ASSERT_TRUE(first.ok()) << intrinsic.name << ": " << first.status().message();
    ASSERT_TRUE(again.ok() && other.ok());
    ASSERT_EQ(first->size(), 200u);
    std::set<std::string> distinct;
    for (size_t i = 0; i < first->size(); ++i) {
      EXPECT_EQ(CanonicalString((*first)[i]), CanonicalString((*again)[i]));
      distinct.insert(CanonicalString((*first)[i]));
      auto ast = plugin->Lower(task, intrinsic.name, (*first)[i], plugin->Target().hardware);
      EXPECT_TRUE(ast.ok()) << intrinsic.name << ": " << ast.status().message();
    }
    EXPECT_EQ(distinct.size(), 200u) << intrinsic.name;
    EXPECT_NE(CanonicalString(first->front()), CanonicalString(other->front())) << intrinsic.name;
  }
}

TEST(CpuGemmSampling, CoversTheFamily) {
  auto samples = TestX86().SampleSchedules(GemmTask(784, 512, 128), "x86.avx512", 400, 7);
  ASSERT_TRUE(samples.ok()) << samples.status().message();
  std::set<std::string> orders, packings, parallels;
  std::set<int64_t> unrolls, threads;
  for (const ParamMap& p : *samples) {
    orders.insert(std::get<std::string>(p.at("loop_order")));
    packings.insert(std::get<std::string>(p.at("packing")));
    parallels.insert(std::get<std::string>(p.at("parallel")));
    unrolls.insert(std::get<int64_t>(p.at("k_unroll")));
    threads.insert(std::get<int64_t>(p.at("threads")));
  }
  EXPECT_EQ(orders.size(), 6u);
  EXPECT_EQ(packings.size(), 4u);
  EXPECT_EQ(parallels.size(), 2u);
  EXPECT_EQ(unrolls.size(), 4u);
  EXPECT_GT(threads.size(), 2u);
}

TEST(CpuGemmSampling, TinyProblemsStillSample) {
  // 1 x 1 x 1: one tile everywhere; the family still has many distinct schedules.
  auto samples = Arm().SampleSchedules(GemmTask(1, 1, 1), "arm.neon", 50, 1);
  ASSERT_TRUE(samples.ok()) << samples.status().message();
  ASSERT_EQ(samples->size(), 50u);
  for (const ParamMap& p : *samples) {
    EXPECT_TRUE(Arm().Lower(GemmTask(1, 1, 1), "arm.neon", p, Arm().Target().hardware).ok());
  }
}

// ---------------------------------------------------------------- lowering

// Flops over the AST are those of the tile-padded problem, for every
// intrinsic and for shapes with and without tails.
TEST(CpuGemmLowering, FlopsAreThoseOfTheTilePaddedProblem) {
  const std::vector<Task> tasks = {GemmTask(3136, 64, 576), GemmTask(49, 1000, 147),
                                   GemmTask(97, 129, 131, 3), GemmTask(1, 1, 1)};
  for (const auto& [plugin, intrinsic] : AllIntrinsics()) {
    for (const Task& task : tasks) {
      auto samples = plugin->SampleSchedules(task, intrinsic.name, 60, 5);
      ASSERT_TRUE(samples.ok()) << samples.status().message();
      ASSERT_EQ(samples->size(), 60u) << intrinsic.name << " " << task.key;
      for (const ParamMap& params : *samples) {
        auto ast = plugin->Lower(task, intrinsic.name, params, plugin->Target().hardware);
        ASSERT_TRUE(ast.ok()) << ast.status().message();
        const int64_t m = std::get<int64_t>(task.workload.at("m"));
        const int64_t n = std::get<int64_t>(task.workload.at("n"));
        const int64_t k = std::get<int64_t>(task.workload.at("k"));
        const int64_t batch = std::get<int64_t>(task.workload.at("batch"));
        const int64_t mr = std::get<int64_t>(params.at("mr"));
        const int64_t nr = std::get<int64_t>(params.at("nr_vec")) * intrinsic.n;
        const double padded = 2.0 * batch * RoundUp(m, mr) * RoundUp(n, nr) * RoundUp(k, intrinsic.k);
        EXPECT_DOUBLE_EQ(TotalFlops(*ast), padded)
            << intrinsic.name << " " << task.key << " " << CanonicalString(params) << "\n"
            << DumpAst(*ast);
        EXPECT_GE(TotalFlops(*ast), 2.0 * batch * m * n * k);
      }
    }
  }
}

TEST(CpuGemmLowering, PackingStagesAppearExactlyWhenAsked) {
  const Task task = GemmTask(500, 300, 200);
  auto samples = TestX86().SampleSchedules(task, "x86.avx2", 200, 11);
  ASSERT_TRUE(samples.ok());
  ASSERT_EQ(samples->size(), 200u);
  for (const ParamMap& params : *samples) {
    const std::string packing = std::get<std::string>(params.at("packing"));
    const bool pack_a = packing == "a" || packing == "ab";
    const bool pack_b = packing == "b" || packing == "ab";
    auto ast = TestX86().Lower(task, "x86.avx2", params, TestX86().Target().hardware);
    ASSERT_TRUE(ast.ok());
    int pack_a_stages = 0, pack_b_stages = 0;
    VisitStages(*ast, [&](const Stage& s, double) {
      if (s.name == "pack_A") {
        ++pack_a_stages;
        EXPECT_EQ(s.src, MemScope::kGlobal);
        EXPECT_EQ(s.dst, MemScope::kCache);
      }
      if (s.name == "pack_B") ++pack_b_stages;
      if (s.name == "load_A") {
        EXPECT_EQ(s.src, pack_a ? MemScope::kCache : MemScope::kGlobal);
        EXPECT_EQ(s.element_stride, pack_a ? 1.0 : 200.0);  // lda = K
      }
      if (s.name == "load_B") {
        EXPECT_EQ(s.src, pack_b ? MemScope::kCache : MemScope::kGlobal);
        EXPECT_EQ(s.element_stride, pack_b ? 1.0 : 300.0);  // ldb = N
      }
    });
    EXPECT_EQ(pack_a_stages > 0, pack_a) << CanonicalString(params);
    EXPECT_EQ(pack_b_stages > 0, pack_b) << CanonicalString(params);
  }
}

TEST(CpuGemmLowering, ParallelLoopIsTheRootWithThreadsExtent) {
  const Task task = GemmTask(784, 256, 512, 2);
  auto samples = Arm().SampleSchedules(task, "arm.sdot", 100, 3);
  ASSERT_TRUE(samples.ok());
  ASSERT_EQ(samples->size(), 100u);
  for (const ParamMap& params : *samples) {
    auto ast = Arm().Lower(task, "arm.sdot", params, Arm().Target().hardware);
    ASSERT_TRUE(ast.ok());
    ASSERT_EQ(ast->roots.size(), 1u);
    const AstNode& root = ast->roots[0];
    ASSERT_TRUE(root.is_loop);
    EXPECT_EQ(root.loop.kind, LoopKind::kParallel);
    EXPECT_EQ(root.loop.extent, std::get<int64_t>(params.at("threads")));
    EXPECT_EQ(CountLoops(root, LoopKind::kParallel), 1);
    ASSERT_EQ(root.children.size(), 1u);
    EXPECT_EQ(root.children[0].loop.var, "batch");  // batch = 2
  }
}

// One schedule worked by hand: M = 100, N = 80, K = 37 on x86.avx2 with
// mr = 4, nr_vec = 2 (nr = 16), mc = 48, nc = 32, kc = 16, k_unroll = 4,
// order "mkn", pack A only, 1 thread.
TEST(CpuGemmLowering, TailsBlocksAndStagesOfAHandCheckedSchedule) {
  GemmSchedule s;
  s.mr = 4;
  s.nr_vec = 2;
  s.mc = 48;
  s.nc = 32;
  s.kc = 16;
  s.loop_order = {GemmDim::kM, GemmDim::kK, GemmDim::kN};
  s.pack_a = true;
  s.k_unroll = 4;
  s.threads = 1;
  const Task task = GemmTask(100, 80, 37);
  auto plan = TestX86().Plan(task, "x86.avx2", cpu_gemm::ToParams(s), TestX86().Target().hardware);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  // m: 25 tiles of 4 rows in blocks of 12 tiles -> 2 full blocks + a 1-tile tail.
  ASSERT_EQ(plan->m.runs.size(), 2u);
  EXPECT_EQ(plan->m.runs[0].count, 2);
  EXPECT_EQ(plan->m.runs[0].units, 12);
  EXPECT_EQ(plan->m.runs[1].units, 1);
  // n: 5 tiles of 16 columns in blocks of 2 -> 2 full + a 1-tile tail.
  EXPECT_EQ(plan->n.runs[0].count, 2);
  EXPECT_EQ(plan->n.runs[1].units, 1);
  // k: 37 steps in blocks of 16 -> 2 full + a 5-step tail (1 unrolled body + 1 rest).
  EXPECT_EQ(plan->k.runs[0].count, 2);
  EXPECT_EQ(plan->k.runs[1].units, 5);

  const ProgramAst ast = *cpu_gemm::LowerGemm(*plan);
  EXPECT_DOUBLE_EQ(TotalFlops(ast), 2.0 * 100 * 80 * 37);  // no padding: 100 = 25*4, 80 = 5*16
  const std::string dump = DumpAst(ast);
  EXPECT_NE(dump.find("for m_block_tail in 1"), std::string::npos) << dump;
  EXPECT_NE(dump.find("for k_rest in 1"), std::string::npos) << dump;
  EXPECT_NE(dump.find("for k_unroll in 4 (unrolled)"), std::string::npos) << dump;
  EXPECT_EQ(dump.find("pack_B"), std::string::npos) << dump;

  // pack_A sits in the k loop (inner of m, k) and serves all 5 n tiles below it.
  int pack_a = 0;
  VisitStages(ast, [&](const Stage& st, double iterations) {
    if (st.name == "pack_A" && st.bytes == 12 * 4 * 16 * 4) {
      ++pack_a;
      EXPECT_EQ(st.reuse, 5);
      EXPECT_EQ(iterations, 2 * 2);  // 2 full m blocks x 2 full k blocks
    }
    if (st.name == "load_A") {
      EXPECT_EQ(st.bytes, 4 * 4);
    }
    if (st.name == "load_B") {
      EXPECT_EQ(st.bytes, 16 * 4);
    }
    if (st.name == "compute_C") {
      EXPECT_EQ(st.intrinsic_calls, 8);
      EXPECT_EQ(st.flops_per_call, 16);
    }
    if (st.name == "store_C") {
      EXPECT_EQ(st.bytes, 4 * 16 * 4);
    }
  });
  EXPECT_EQ(pack_a, 1);
}

TEST(CpuGemmLowering, TemplateValuesAreFiniteOnEveryStage) {
  EXPECT_EQ(TestX86().TemplateDimNames().size(), static_cast<size_t>(kTemplateDims));
  const Task task = GemmTask(196, 1024, 256);
  for (const auto& [plugin, intrinsic] : AllIntrinsics()) {
    auto samples = plugin->SampleSchedules(task, intrinsic.name, 30, 9);
    ASSERT_TRUE(samples.ok());
    ASSERT_EQ(samples->size(), 30u) << intrinsic.name;
    for (const ParamMap& params : *samples) {
      auto ast = plugin->Lower(task, intrinsic.name, params, plugin->Target().hardware);
      ASSERT_TRUE(ast.ok());
      int stages = 0;
      VisitStages(*ast, [&](const Stage& s, double) {
        ++stages;
        for (float v : s.template_values) EXPECT_TRUE(std::isfinite(v)) << s.name;
        EXPECT_EQ(s.template_values[0], std::get<std::string>(params.at("packing")).find('a') !=
                                                std::string::npos ? 1.0f : 0.0f);
        EXPECT_GT(s.template_values[3], 0.0f);
        EXPECT_LE(s.template_values[3], 1.0f);
      });
      EXPECT_GE(stages, 5);
    }
  }
}

TEST(CpuGemmLowering, SamplesFeaturizeToFiniteTokens) {
  const Task task = GemmTask(3136, 64, 576);
  for (const auto& [plugin, intrinsic] : AllIntrinsics()) {
    auto samples = plugin->SampleSchedules(task, intrinsic.name, 20, 13);
    ASSERT_TRUE(samples.ok());
    ASSERT_EQ(samples->size(), 20u) << intrinsic.name;
    for (const ParamMap& params : *samples) {
      auto ast = plugin->Lower(task, intrinsic.name, params, plugin->Target().hardware);
      ASSERT_TRUE(ast.ok());
      auto tokens = Featurize(*ast, plugin->Target().hardware, intrinsic);
      ASSERT_TRUE(tokens.ok()) << tokens.status().message();
      EXPECT_GE(tokens->num_tokens, 2 + 5);
      for (float v : tokens->values) ASSERT_TRUE(std::isfinite(v));
    }
  }
}

TEST(CpuGemmLowering, RejectsForeignTasksAndIntrinsics) {
  Task task = GemmTask(64, 64, 64);
  task.workload["in_type"] = std::string("f32");
  const ParamMap params = cpu_gemm::ToParams(Avx512Schedule());
  auto wrong_type = TestX86().Lower(task, "x86.vnni", params, TestX86().Target().hardware);
  ASSERT_FALSE(wrong_type.ok());
  EXPECT_NE(wrong_type.status().message().find("in_type"), std::string::npos);
  auto unknown = TestX86().Lower(task, "arm.neon", params, TestX86().Target().hardware);
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().code(), Status::Code::kNotFound);
  Task no_m = GemmTask(64, 64, 64);
  no_m.workload.erase("m");
  auto missing = TestX86().Lower(no_m, "x86.avx512", params, TestX86().Target().hardware);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("'m'"), std::string::npos);
}

// ---------------------------------------------------------------- task suites

TEST(CpuGemmSuites, AtLeastFortyTasksPerIntrinsicWithUniqueKeys) {
  for (const auto& [plugin, intrinsic] : AllIntrinsics()) {
    size_t sum_of_networks = 0;
    for (const std::string& suite : plugin->TaskSuites()) {
      auto tasks = plugin->Tasks(suite, intrinsic.name);
      ASSERT_TRUE(tasks.ok()) << suite << ": " << tasks.status().message();
      EXPECT_FALSE(tasks->empty()) << suite;
      if (suite != "all") sum_of_networks += tasks->size();
      std::set<std::string> keys;
      for (const Task& t : *tasks) {
        EXPECT_TRUE(keys.insert(t.key).second) << "duplicate key " << t.key;
        EXPECT_EQ(t.op, "gemm");
        EXPECT_EQ(std::get<std::string>(t.workload.at("in_type")), intrinsic.input_type);
        EXPECT_EQ(std::get<std::string>(t.workload.at("acc_type")), intrinsic.accum_type);
        const double flops = 2.0 * std::get<int64_t>(t.workload.at("batch")) *
                             std::get<int64_t>(t.workload.at("m")) *
                             std::get<int64_t>(t.workload.at("n")) * std::get<int64_t>(t.workload.at("k"));
        EXPECT_GE(flops, cpu_gemm::kMinSuiteFlops) << t.key;
        EXPECT_LE(flops, cpu_gemm::kMaxSuiteFlops) << t.key;
        const std::string suffix = intrinsic.name.substr(intrinsic.name.find('.'));
        EXPECT_EQ(t.key.substr(t.key.size() - suffix.size()), suffix) << t.key;
      }
      if (suite == "all") {
        EXPECT_GE(tasks->size(), 40u) << intrinsic.name;
        EXPECT_EQ(tasks->size(), sum_of_networks);
      }
    }
    EXPECT_FALSE(plugin->Tasks("vgg16", intrinsic.name).ok());
  }
}

TEST(CpuGemmSuites, KnownLayersHaveTheirShapes) {
  auto tasks = TestX86().Tasks("resnet50", "x86.avx512");
  ASSERT_TRUE(tasks.ok());
  std::set<std::string> keys;
  for (const Task& t : *tasks) keys.insert(t.key);
  EXPECT_TRUE(keys.count("resnet50.conv2_x.3x3.m3136_n64_k576.avx512"));
  EXPECT_TRUE(keys.count("resnet50.conv1.7x7s2.m100352_n64_k147.avx512"));
  auto bert = TestX86().Tasks("bert", "x86.vnni");
  ASSERT_TRUE(bert.ok());
  keys.clear();
  for (const Task& t : *bert) keys.insert(t.key);
  EXPECT_TRUE(keys.count("bert.ffn.intermediate.m512_n3072_k768.vnni"));
  EXPECT_TRUE(keys.count("bert.attention.scores.m128_n128_k64_b12.vnni"));
}

// ---------------------------------------------------------------- targets

TEST(CpuGemmTargets, IntrinsicsDescribeTheirInstructions) {
  const std::vector<IntrinsicInfo> x86_intrinsics = x86::X86Plugin(TestMachine()).Intrinsics();
  ASSERT_EQ(x86_intrinsics.size(), 4u);
  for (const IntrinsicInfo& info : x86_intrinsics) {
    EXPECT_EQ(info.ops_per_call, 2.0 * info.m * info.n * info.k) << info.name;
    EXPECT_EQ(info.name.rfind("x86.", 0), 0u);
  }
  EXPECT_EQ(x86_intrinsics[2].instruction, "vpdpbusd");
  EXPECT_EQ(x86_intrinsics[2].k, 4);
  EXPECT_EQ(x86_intrinsics[3].k, 2);
  const std::vector<IntrinsicInfo> arm_intrinsics = Arm().Intrinsics();
  ASSERT_EQ(arm_intrinsics.size(), 2u);
  EXPECT_EQ(arm_intrinsics[0].name, "arm.neon");
  EXPECT_EQ(arm_intrinsics[1].name, "arm.sdot");
  EXPECT_EQ(arm_intrinsics[1].ops_per_call, 32);
  const HardwareParams graviton = Arm().Target().hardware;
  EXPECT_EQ(graviton.cores, 64);
  EXPECT_EQ(graviton.vector_registers, 32);
  EXPECT_EQ(graviton.l2_bytes, 1024 * 1024);
  EXPECT_EQ(Arm().CanMeasure("arm.neon").code(), Status::Code::kUnsupported);
}

TEST(CpuGemmTargets, ParsesCpuinfoAndCacheSizes) {
  const auto fields = x86::ParseCpuinfo(
      "processor\t: 0\nmodel name\t: Test CPU @ 2.00GHz\ncpu MHz\t\t: 2000.000\n"
      "flags\t\t: fpu avx2 fma avx512f\n\nprocessor\t: 1\nflags\t\t: other\n");
  EXPECT_EQ(fields.model, "Test CPU @ 2.00GHz");
  EXPECT_EQ(fields.flags, (std::vector<std::string>{"fpu", "avx2", "fma", "avx512f"}));
  EXPECT_DOUBLE_EQ(fields.mhz, 2000.0);
  EXPECT_EQ(cpu_gemm::ParseCacheSize("48K"), 48.0 * 1024);
  EXPECT_EQ(cpu_gemm::ParseCacheSize("32M"), 32.0 * 1024 * 1024);
  EXPECT_EQ(cpu_gemm::ParseCacheSize("4096"), 4096.0);
  EXPECT_EQ(cpu_gemm::ParseCacheSize(""), 0.0);
}

std::set<std::string> ProcCpuinfoFlags() {
  std::ifstream in("/proc/cpuinfo");
  std::stringstream text;
  text << in.rdbuf();
  const auto fields = x86::ParseCpuinfo(text.str());
  return {fields.flags.begin(), fields.flags.end()};
}

TEST(CpuGemmHost, X86HardwareIsReadFromThisHost) {
#if !defined(__x86_64__)
  GTEST_SKIP() << "not an x86-64 host";
#endif
  const x86::X86Plugin host;
  const HardwareParams hw = host.Target().hardware;
  EXPECT_GE(hw.cores, 1);
  EXPECT_GT(hw.l1_bytes, 0);
  EXPECT_GT(hw.l2_bytes, 0);
  EXPECT_GT(hw.cache_line_bytes, 0);
  EXPECT_FALSE(hw.flags.empty());
  EXPECT_FALSE(hw.model.empty());
  EXPECT_GE(hw.vector_bytes, 16);
  EXPECT_TRUE(hw.vector_registers == 16 || hw.vector_registers == 32);
  EXPECT_EQ(hw.vector_bytes == 64, x86::HasFlag(hw, "avx512f"));
  EXPECT_EQ(host.Intrinsics().size(), 4u);  // described whatever the host can run
}

TEST(CpuGemmHost, CanMeasureAgreesWithProcCpuinfo) {
#if !defined(__x86_64__)
  GTEST_SKIP() << "not an x86-64 host";
#endif
  const std::set<std::string> flags = ProcCpuinfoFlags();
  ASSERT_FALSE(flags.empty()) << "/proc/cpuinfo has no flags line";
  const x86::X86Plugin host;
  const bool avx512f = flags.count("avx512f") > 0;
  const std::map<std::string, bool> expected = {
      {"x86.avx2", flags.count("avx2") && flags.count("fma")},
      {"x86.avx512", avx512f},
      {"x86.vnni", avx512f && (flags.count("avx512_vnni") || flags.count("avx512vnni"))},
      {"x86.bf16", avx512f && flags.count("avx512_bf16")},
  };
  for (const auto& [intrinsic, can] : expected) {
    const Status status = host.CanMeasure(intrinsic);
    EXPECT_EQ(status.ok(), can) << intrinsic << ": " << status.message();
    if (!can) {
      EXPECT_EQ(status.code(), Status::Code::kUnsupported);
    }
  }
  EXPECT_EQ(host.CanMeasure("x86.amx").code(), Status::Code::kNotFound);
  // Measurement runs exactly where CanMeasure says it can (tests/x86_kernels_test.cpp
  // checks the records themselves).
  auto record = host.Measure(GemmTask(64, 64, 64), "x86.avx512", cpu_gemm::ToParams(Avx512Schedule()), {});
  EXPECT_EQ(record.ok(), expected.at("x86.avx512")) << (record.ok() ? "" : record.status().message());
}

TEST(CpuGemmHost, HostSchedulesRespectHostCores) {
  const x86::X86Plugin host;
  const double cores = host.Target().hardware.cores;
  auto samples = host.SampleSchedules(GemmTask(3136, 256, 64), "x86.avx2", 100, 21);
  ASSERT_TRUE(samples.ok()) << samples.status().message();
  ASSERT_EQ(samples->size(), 100u);
  for (const ParamMap& p : *samples) EXPECT_LE(std::get<int64_t>(p.at("threads")), cores);
}

}  // namespace
}  // namespace ucmoh
