// The XGBoost baseline: learns a known latency function, survives a
// save/load round trip bit for bit, and ranks real CUTLASS kernels.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>

#include "ucmoh/flat_features.h"
#include "ucmoh/metrics.h"
#include "ucmoh/plugin_loader.h"
#include "ucmoh/program_set.h"
#include "ucmoh/splits.h"
#include "ucmoh/xgboost_baseline.h"

#include "shared_data.h"

namespace ucmoh {
namespace {

// 40 tasks x 40 programs of 3 random tokens. Latency depends on four
// features of the last token (and a task-wide factor that ranking ignores).
ProgramSet SyntheticSet() {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<float> unit(0.f, 1.f);
  ProgramSet set;
  for (int t = 0; t < 40; ++t) {
    const double task_scale = 1e-4 * (1 + t % 7);
    set.tasks.push_back({"task" + std::to_string(t), t % 2 ? "x86.vnni" : "x86.avx512", "x86", {}, ""});
    for (int p = 0; p < 40; ++p) {
      TokenMatrix tokens;
      tokens.num_tokens = 3;
      for (int i = 0; i < 3 * kFeatureDim; ++i) tokens.values.push_back(unit(rng));
      const float* x = tokens.row(2);
      const double log_latency = 2.0 * x[0] - 1.5 * x[1] + 1.0 * x[2] * x[3];
      set.tasks.back().programs.push_back(static_cast<int32_t>(set.size()));
      set.tokens.push_back(std::move(tokens));
      set.latency_s.push_back(task_scale * std::exp(log_latency));
      set.task.push_back(t);
    }
  }
  return set;
}

struct TrainTest {
  ProgramSet train, test;
};

TrainTest SplitByTask(const ProgramSet& set, double fraction, uint64_t seed) {
  SplitOptions options;
  options.kind = SplitKind::kByTask;
  options.test_fraction = fraction;
  options.seed = seed;
  auto split = MakeSplit(set, options);
  EXPECT_TRUE(split.ok()) << split.status().message();
  if (!split.ok()) return {};
  return {set.Subset(split->train), set.Subset(split->test)};
}

std::string TempPath(const std::string& name) { return ::testing::TempDir() + "ucmoh_" + name; }

TEST(FlatFeatures, PadsTruncatesAndCountsTokens) {
  TokenMatrix tokens;
  tokens.num_tokens = 2;
  tokens.values.assign(2 * kFeatureDim, 1.f);
  std::vector<float> out(FlatFeatureWidth(3));
  FlattenTokens(tokens, 3, out.data());
  EXPECT_EQ(out.size(), 3u * kFeatureDim + 1);
  EXPECT_EQ(out[2 * kFeatureDim - 1], 1.f);
  EXPECT_EQ(out[2 * kFeatureDim], 0.f);  // padding
  EXPECT_EQ(out.back(), 2.f);

  std::vector<float> truncated(FlatFeatureWidth(1));
  FlattenTokens(tokens, 1, truncated.data());
  EXPECT_EQ(truncated.back(), 2.f);  // the true count, even when cut
}

TEST(XgboostBaseline, ObjectiveNames) {
  EXPECT_EQ(*ParseXgbObjective("rank"), XgbObjective::kRank);
  EXPECT_EQ(*ParseXgbObjective("reg"), XgbObjective::kReg);
  EXPECT_FALSE(ParseXgbObjective("lambdamart").ok());
}

class BothObjectives : public ::testing::TestWithParam<XgbObjective> {};

TEST_P(BothObjectives, RanksHeldOutTasksAndRoundTrips) {
  const TrainTest data = SplitByTask(SyntheticSet(), 0.25, 3);
  XgbOptions options;
  options.objective = GetParam();
  options.rounds = 150;
  options.nthread = 1;  // robust on a busy machine: no OpenMP threads spinning for cores
  auto model = TrainXgb(data.train, options);
  ASSERT_TRUE(model.ok()) << model.status().message();
  EXPECT_EQ(model->max_tokens(), 3);
  EXPECT_EQ(model->rounds(), 150);

  auto scores = model->Predict(data.test);
  ASSERT_TRUE(scores.ok()) << scores.status().message();
  const RankingMetrics metrics = EvaluateRanking(data.test, *scores);
  std::printf("[ synthetic ] %s: PCA %.3f top-1 %.3f over %lld held-out tasks\n",
              XgbObjectiveName(GetParam()), metrics.pca, metrics.top1,
              static_cast<long long>(metrics.tasks));
  EXPECT_GT(metrics.pca, 0.8);

  const std::string path = TempPath(std::string("xgb_") + XgbObjectiveName(GetParam()) + ".ubj");
  ASSERT_TRUE(model->Save(path).ok());
  auto loaded = XgbModel::Load(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  EXPECT_EQ(loaded->objective(), GetParam());
  EXPECT_EQ(loaded->max_tokens(), 3);
  EXPECT_EQ(loaded->rounds(), 150);
  auto reloaded_scores = loaded->Predict(data.test);
  ASSERT_TRUE(reloaded_scores.ok());
  EXPECT_EQ(*reloaded_scores, *scores) << "save -> load must not change a single prediction";
  std::remove(path.c_str());
}

INSTANTIATE_TEST_SUITE_P(Objectives, BothObjectives,
                         ::testing::Values(XgbObjective::kRank, XgbObjective::kReg),
                         [](const auto& info) { return std::string(XgbObjectiveName(info.param)); });

TEST(XgboostBaseline, EarlyStoppingKeepsTheBestRound) {
  const TrainTest data = SplitByTask(SyntheticSet(), 0.25, 5);
  XgbOptions options;
  options.rounds = 400;
  options.early_stopping_rounds = 10;
  options.nthread = 1;  // robust on a busy machine: no OpenMP threads spinning for cores
  auto model = TrainXgb(data.train, options, &data.test);
  ASSERT_TRUE(model.ok()) << model.status().message();
  std::printf("[ synthetic ] early stopping kept %d rounds\n", model->rounds());
  EXPECT_GE(model->rounds(), 1);
  EXPECT_LT(model->rounds(), 400) << "ten rounds without improvement should stop well before 400";
}

TEST(XgboostBaseline, ErrorsAreValues) {
  EXPECT_FALSE(TrainXgb(ProgramSet{}, XgbOptions{}).ok());
  auto missing = XgbModel::Load(TempPath("no_such_model.ubj"));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), Status::Code::kNotFound);

  const std::string garbage = TempPath("garbage.ubj");
  std::ofstream(garbage) << "this is not a model";
  auto bad = XgbModel::Load(garbage);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("XGBoost"), std::string::npos) << bad.status().message();
  std::remove(garbage.c_str());
}

// ---- Real data: ResNet-50 conv2d kernels profiled by CUTLASS on an Ampere GPU.

TEST(XgboostBaseline, RanksHeldOutCutlassLayers) {
  UCMOH_SKIP_WITHOUT_SHARED_DATA();
  const std::string csv = testing::CutlassDataDir() + "/resnet50_cutlass_profiler_result.csv";
  // The project's own plugins are built with the tests: failing to load them is a failure.
  auto plugins = LoadPlugins(UCMOH_SOURCE_DIR "/plugins.json");
  ASSERT_TRUE(plugins.ok()) << plugins.status().message();
  const LoadedPlugin* tensorcore = plugins->ForTarget("tensorcore");
  ASSERT_NE(tensorcore, nullptr) << "no tensorcore plugin in " UCMOH_SOURCE_DIR "/plugins.json";

  auto records = tensorcore->plugin->Import("cutlass", csv);
  ASSERT_TRUE(records.ok()) << records.status().message();
  std::vector<FeaturizeFailure> failures;
  auto set = BuildProgramSet(*plugins, *records, &failures);
  ASSERT_TRUE(set.ok()) << set.status().message();
  EXPECT_LT(failures.size(), records->size() / 10) << "most CUTLASS kernels must lower";

  const TrainTest data = SplitByTask(*set, 0.25, 1);
  XgbOptions options;
  options.nthread = 1;  // robust on a busy machine: no OpenMP threads spinning for cores
  options.rounds = 300;
  auto model = TrainXgb(data.train, options);
  ASSERT_TRUE(model.ok()) << model.status().message();
  auto scores = model->Predict(data.test);
  ASSERT_TRUE(scores.ok()) << scores.status().message();
  const RankingMetrics m = EvaluateRanking(data.test, *scores);
  ASSERT_GT(m.tasks, 0) << "no held-out task was evaluated";
  std::printf("[ cutlass   ] %zu programs, %zu tasks; held out %lld tasks: PCA %.3f top-1 %.3f "
              "top-5 %.3f NDCG %.3f\n",
              set->size(), set->tasks.size(), static_cast<long long>(m.tasks), m.pca, m.top1, m.top5, m.ndcg);
  EXPECT_GT(m.pca, 0.65);
}

}  // namespace
}  // namespace ucmoh
