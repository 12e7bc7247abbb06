// tensorcore-measure on the CPU: its kernel list, its plan per GPU
// architecture (validated by the plugin), the second-pass sample, the
// committed measurements (each a program of the list that resolves on its
// GPU), and the binary's refusals, which touch no GPU.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>

#include "bert_suite.h"
#include "gpu_architecture.h"
#include "measured_kernels.h"
#include "measurement_plan.h"
#include "program.h"
#include "ucmoh/records_io.h"

namespace ucmoh::tensorcore::measure {
namespace {

const GpuArchitecture& Arch(int cc) {
  for (const GpuArchitecture& arch : KnownArchitectures())
    if (arch.compute_capability == cc) return arch;
  throw std::runtime_error("no sm_" + std::to_string(cc));
}

TEST(TensorCoreMeasure, KernelListHasBothIteratorsOfEveryLineWithUniqueIds) {
  const auto& kernels = MeasuredKernels();
  ASSERT_EQ(kernels.size(), 132u);  // 66 lines of measured_kernels.def x 2 iterators
  std::set<std::string> ids;
  std::map<std::string, int> per_intrinsic;
  for (const MeasuredKernel& k : kernels) {
    EXPECT_TRUE(ids.insert(k.id).second) << k.id;
    ASSERT_NE(k.intrinsic, nullptr) << k.id;
    EXPECT_EQ(k.id.rfind(k.intrinsic->short_name + "_", 0), 0u) << k.id;
    EXPECT_EQ(k.config.alignment * k.intrinsic->InputBytes(), 16) << k.id;  // 16-byte accesses
    EXPECT_EQ(k.config.warps_k, 1);
    if (!k.intrinsic->UsesCpAsync()) EXPECT_EQ(k.config.stages, 2) << k.id;
    ++per_intrinsic[k.intrinsic->short_name];
  }
  EXPECT_EQ(per_intrinsic.size(), 6u);
  EXPECT_EQ(per_intrinsic["s16816"], 28);
  EXPECT_EQ(per_intrinsic["i8816"], 16);
}

TEST(TensorCoreMeasure, Sm90PlanTimesEveryKernelOnEveryProblemAndEachResolves) {
  auto plan = PlanMeasurements(PlanOptions{}, Arch(90));
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  // 19 ResNet-50 layers + 8 BERT GEMMs, every kernel valid on each of them.
  EXPECT_EQ(plan->size(), 27u * MeasuredKernels().size());
  std::set<std::string> ids, keys;
  for (const PlannedMeasurement& m : *plan) {
    ids.insert(m.kernel->id);
    keys.insert(m.task.key + " " + m.kernel->id);
    auto program = ResolveProgram(m.task, m.kernel->intrinsic->info.name, m.schedule, Arch(90));
    ASSERT_TRUE(program.ok()) << program.status().message();
    EXPECT_EQ(m.problem.out_type, m.kernel->intrinsic->info.accum_type);
  }
  EXPECT_EQ(ids.size(), MeasuredKernels().size());
  EXPECT_EQ(keys.size(), plan->size());  // no measurement twice
}

TEST(TensorCoreMeasure, TuringPlansOnlyItsInstructions) {
  auto plan = PlanMeasurements(PlanOptions{}, Arch(75));
  ASSERT_TRUE(plan.ok());
  ASSERT_FALSE(plan->empty());
  for (const PlannedMeasurement& m : *plan) EXPECT_FALSE(m.kernel->intrinsic->UsesCpAsync()) << m.kernel->id;
}

TEST(TensorCoreMeasure, SuitesAndIntrinsicsNarrowThePlanAndUnknownOnesAreRefusedByName) {
  PlanOptions options;
  options.suites = {"bert"};
  options.intrinsics = {"tensorcore.i16832"};
  auto plan = PlanMeasurements(options, Arch(80));
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->size(), 8u * 28u);
  for (const PlannedMeasurement& m : *plan) {
    EXPECT_EQ(m.task.key.rfind("bert.conv2d.", 0), 0u) << m.task.key;
    EXPECT_TRUE(IsBertGemm(m.problem));
  }
  options.suites = {"vgg"};
  auto bad_suite = PlanMeasurements(options, Arch(80));
  ASSERT_FALSE(bad_suite.ok());
  EXPECT_NE(bad_suite.status().message().find("unknown suite 'vgg'"), std::string::npos);
  options.suites = {"bert"};
  options.intrinsics = {"tensorcore.h8"};
  auto bad_intrinsic = PlanMeasurements(options, Arch(80));
  ASSERT_FALSE(bad_intrinsic.ok());
  EXPECT_NE(bad_intrinsic.status().message().find("unknown intrinsic 'tensorcore.h8'"), std::string::npos);
}

TEST(TensorCoreMeasure, BatchesWidenTheSuites) {
  PlanOptions options;
  options.intrinsics = {"tensorcore.h1688"};
  options.resnet50_batches = {32, 128};
  options.bert_batches = {1, 4, 16, 64};
  auto plan = PlanMeasurements(options, Arch(90));
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  std::set<int64_t> resnet_batches, bert_tokens;
  for (const PlannedMeasurement& m : *plan)
    (m.problem.h == 1 ? bert_tokens : resnet_batches).insert(m.problem.n);
  EXPECT_EQ(resnet_batches, (std::set<int64_t>{32, 128}));
  EXPECT_EQ(bert_tokens, (std::set<int64_t>{128, 512, 2048, 8192}));
  EXPECT_EQ(plan->size(), (19u * 2 + 4u * 4) * 16u);  // 16 h1688 kernels, all valid
  options.bert_batches = {0};
  auto bad = PlanMeasurements(options, Arch(90));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("batch 0 must be positive"), std::string::npos);
}

TEST(TensorCoreMeasure, BertGemmsAreOneByOneConvsWhoseImplicitGemmIsTheGemm) {
  const auto gemms = BertGemms("f16", "f32", "f32");
  ASSERT_EQ(gemms.size(), 8u);
  for (const ConvProblem& p : gemms) {
    EXPECT_EQ(p.h * p.w * p.r * p.s * p.p * p.q, 1);
    EXPECT_EQ(p.n % 128, 0);
    EXPECT_TRUE(IsBertGemm(p));
  }
  ConvProblem other = gemms[0];
  other.n += 1;
  EXPECT_FALSE(IsBertGemm(other));
}

TEST(TensorCoreMeasure, SecondPassTakesEveryNthFromTheOffset) {
  EXPECT_EQ(SecondPassIndices(100, 10, 5).size(), 10u);
  EXPECT_EQ(SecondPassIndices(100, 10, 5).front(), 5u);
  EXPECT_EQ(SecondPassIndices(100, 10, 5).back(), 95u);
  EXPECT_EQ(SecondPassIndices(3, 10, 5).size(), 0u);
  EXPECT_TRUE(SecondPassIndices(100, 0, 0).empty());
}

// The measurements committed under data/tensorcore (docs/data.md): each is a
// planned program of its GPU's architecture, timed, with its hardware.
TEST(TensorCoreMeasure, CommittedMeasurementsArePlannedProgramsOfTheirGpu) {
  const std::string dir = std::string(UCMOH_SOURCE_DIR) + "/data/tensorcore/";
  // The default suites (27 problems), and ResNet-50 at batch 32 and 128 with
  // BERT at batch 1, 4, 16 and 64 (54 problems).
  const std::pair<const char*, size_t> files[] = {
      {"nvidia-h100-80gb-hbm3", 27}, {"nvidia-h100-80gb-hbm3.card2", 27}, {"nvidia-h200", 27},
      {"nvidia-h100-80gb-hbm3.batches", 54}, {"nvidia-h200.batches", 54}};
  for (const auto& [gpu, problems] : files) {
    auto records = ReadRecordsFile(dir + gpu + ".jsonl.gz");
    ASSERT_TRUE(records.ok()) << records.status().message();
    ASSERT_EQ(records->size(), problems * MeasuredKernels().size()) << gpu;
    std::set<std::string> kernels;
    for (const auto& numbered : *records) {
      const Record& r = numbered.record;
      auto arch = ArchitectureOf(r.hardware);
      ASSERT_TRUE(arch.ok()) << arch.status().message();
      EXPECT_EQ((*arch)->compute_capability, 90);
      ASSERT_TRUE(ResolveProgram(r.task, r.intrinsic, r.schedule, **arch).ok()) << r.task.key;
      EXPECT_GT(r.latency.median_s, 0);
      EXPECT_EQ(r.provenance.kind, "measured");
      kernels.insert(std::get<std::string>(r.provenance.details.at("kernel")));
    }
    EXPECT_EQ(kernels.size(), MeasuredKernels().size()) << gpu;
  }
}

#ifdef UCMOH_TENSORCORE_MEASURE_BIN
struct MeasurerRun {
  int status;
  std::string output;
};

MeasurerRun RunMeasurer(const std::string& flags) {
  const std::string command = std::string(UCMOH_TENSORCORE_MEASURE_BIN) + " " + flags + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  std::string output;
  std::array<char, 512> buffer{};
  while (fgets(buffer.data(), buffer.size(), pipe)) output += buffer.data();
  return {pclose(pipe), output};
}

TEST(TensorCoreMeasureBinary, PlansWithoutAGpuAndRefusesBadInputInOneLine) {
  MeasurerRun plan = RunMeasurer("--plan-only --arch sm_90 --suites bert");
  EXPECT_EQ(plan.status, 0) << plan.output;
  EXPECT_NE(plan.output.find("1056 measurements on sm_90"), std::string::npos) << plan.output;
  MeasurerRun unknown_arch = RunMeasurer("--plan-only --arch sm_70");
  EXPECT_NE(unknown_arch.status, 0);
  EXPECT_NE(unknown_arch.output.find("tensorcore-measure: --arch:"), std::string::npos) << unknown_arch.output;
  EXPECT_NE(unknown_arch.output.find("sm_70"), std::string::npos) << unknown_arch.output;
  MeasurerRun unknown_suite = RunMeasurer("--plan-only --arch sm_80 --suites vgg");
  EXPECT_NE(unknown_suite.status, 0);
  EXPECT_NE(unknown_suite.output.find("unknown suite 'vgg'"), std::string::npos) << unknown_suite.output;
  MeasurerRun no_out = RunMeasurer("");
  EXPECT_NE(no_out.status, 0);
  EXPECT_EQ(no_out.output, "tensorcore-measure: -o OUT.jsonl is required\n");
  const std::string out = testing::TempDir() + "/never.jsonl";
  MeasurerRun no_second_out = RunMeasurer("-o " + out + " --second-pass-every 10");
  EXPECT_NE(no_second_out.status, 0);
  EXPECT_NE(no_second_out.output.find("--second-pass-every needs --second-pass-out"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(out));
}
#endif

}  // namespace
}  // namespace ucmoh::tensorcore::measure
