// The scoring plan (core/src/scoring_plan.cpp: packed tokens, oneDNN, the
// hand-written attention) computes what the LibTorch module computes, for
// every shape of network the CLI trains and for programs of every length,
// including chunks that split between programs.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cstdio>
#include <random>

#include "cost_model_impl.h"
#include "scoring_plan.h"
#include "synthetic_programs.h"
#include "ucmoh/metrics.h"
#include "ucmoh/splits.h"
#include "ucmoh/training.h"

namespace ucmoh {
namespace {

// Programs of 1..`longest` tokens with values on the scale of real features.
ProgramSet ProgramsOfManyLengths(int programs, int longest, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> value(-3.f, 6.f);
  ProgramSet set;
  set.tasks.push_back({"task", "toy.a", "toy", {}});
  for (int p = 0; p < programs; ++p) {
    TokenMatrix m;
    m.num_tokens = 1 + static_cast<int>(rng() % static_cast<uint64_t>(longest));
    m.values.resize(static_cast<size_t>(m.num_tokens) * kFeatureDim);
    for (float& v : m.values) v = value(rng);
    set.tokens.push_back(std::move(m));
    set.latency_s.push_back(1e-3);
    set.task.push_back(0);
    set.tasks[0].programs.push_back(p);
  }
  return set;
}

// The module's scores: one padded batch, as training sees the programs.
std::vector<float> ModuleScores(const CostModel& model, const ProgramSet& set) {
  torch::NoGradGuard no_grad;
  model.impl().net->eval();
  std::vector<int32_t> all(set.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int32_t>(i);
  auto out = model.impl().Forward(MakeTokenBatch(set, all)).contiguous();
  return {out.data_ptr<float>(), out.data_ptr<float>() + out.numel()};
}

void ExpectSameScores(const NetworkConfig& config, const ProgramSet& set) {
  auto model = CostModel::Create(config);
  ASSERT_TRUE(model.ok()) << model.status().message();
  model->FitNormalizer(set);
  ASSERT_TRUE(ScoringPlan::Supports(model->impl()));
  const auto expected = ModuleScores(*model, set);
  auto scores = model->Predict(set);
  ASSERT_TRUE(scores.ok()) << scores.status().message();
  ASSERT_EQ(scores->size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i)
    ASSERT_NEAR((*scores)[i], expected[i], 1e-4 + 1e-4 * std::abs(expected[i]))
        << "program " << i << " (" << set.tokens[i].num_tokens << " tokens)";
}

TEST(ScoringPlan, MatchesTheModuleForTheDefaultNetwork) {
  ExpectSameScores(NetworkConfig{}, ProgramsOfManyLengths(300, 12, 1));
}

TEST(ScoringPlan, MatchesTheModuleForEveryNetworkShape) {
  // Head widths 8, 12, 16 and 32 (the attention kernel's compiled widths)
  // and 10 (its generic path).
  for (auto [hidden, heads, encoder, fc] : {std::tuple{32, 4, 1, 0}, {48, 3, 3, 3}, {16, 1, 2, 1}, {128, 8, 2, 2},
                                            {96, 3, 1, 1}, {40, 4, 1, 1}, {48, 4, 2, 2}}) {
    NetworkConfig c;
    c.hidden = hidden;
    c.heads = heads;
    c.encoder_layers = encoder;
    c.fc_blocks = fc;
    c.seed = static_cast<uint64_t>(hidden);
    SCOPED_TRACE(testing::Message() << "hidden " << hidden << " heads " << heads);
    ExpectSameScores(c, ProgramsOfManyLengths(120, 20, hidden));
  }
}

// 400 programs of up to 60 tokens: about 12,000 tokens, so the plan scores
// them in several chunks, each ending at a program boundary.
TEST(ScoringPlan, MatchesTheModuleAcrossChunks) {
  ExpectSameScores(NetworkConfig{}, ProgramsOfManyLengths(400, 60, 3));
}

// Chunks run on the intra-op threads (ScoringPlan::Score): with two threads
// every program keeps its own score, in order, whether the set is one chunk
// per thread or several, and whatever thread scored it.
TEST(ScoringPlan, ThreadsScoreTheirChunksLikeOneThread) {
  const int threads_before = at::get_num_threads();
  for (auto [programs, longest] : {std::pair{400, 60}, {7, 5}, {1, 3}}) {
    auto set = ProgramsOfManyLengths(programs, longest, 5);
    auto model = CostModel::Create(NetworkConfig{});
    model->FitNormalizer(set);
    at::set_num_threads(1);
    auto one = model->Predict(set);
    at::set_num_threads(2);
    auto two = model->Predict(set);
    ASSERT_TRUE(one.ok() && two.ok());
    ASSERT_EQ(two->size(), set.size());
    for (size_t i = 0; i < set.size(); ++i)
      ASSERT_NEAR((*two)[i], (*one)[i], 1e-5 + 1e-5 * std::abs((*one)[i])) << programs << " programs, program " << i;
  }
  ExpectSameScores(NetworkConfig{}, ProgramsOfManyLengths(400, 60, 6));  // on two threads
  at::set_num_threads(threads_before);
}

// oneDNN 2.6 has no AVX2 kernel for a matmul with ReLU then sum fused, and
// fell back to its reference loop: 5 s per 4,096 programs on an AMD EPYC
// (Zen 3) instead of tens of ms. The plan must run a real kernel for every
// layer wherever oneDNN has one for a plain matmul.
TEST(ScoringPlan, RunsNoReferenceKernelWhereOneDnnHasARealOne) {
  auto set = ProgramsOfManyLengths(50, 12, 7);
  auto model = CostModel::Create(NetworkConfig{});
  model->FitNormalizer(set);
  const ScoringPlan plan(model->impl());
  for (int64_t rows : {128, 2048}) {
    const auto names = plan.KernelImplementations(rows);
    ASSERT_EQ(names.size(), 9u);  // 2 encoder, in_proj, out_proj, 2 x 2 FC, decoder
    if (names[2].rfind("ref", 0) == 0) GTEST_SKIP() << "oneDNN has no jit matmul on this CPU: " << names[2];
    for (size_t i = 0; i < names.size(); ++i)
      EXPECT_NE(names[i].rfind("ref", 0), 0u) << "layer " << i << " at " << rows << " rows runs " << names[i];
  }
}

TEST(ScoringPlan, ScoresAProgramWithoutTokensZeroAndKeepsOrder) {
  auto set = ProgramsOfManyLengths(5, 8, 4);
  set.tokens[2] = TokenMatrix{};  // no tokens: nothing to sum
  auto model = CostModel::Create(NetworkConfig{});
  model->FitNormalizer(set);
  auto scores = model->Predict(set);
  ASSERT_TRUE(scores.ok());
  EXPECT_EQ((*scores)[2], 0.f);
  auto alone = model->Predict(set.Subset({4}));
  ASSERT_TRUE(alone.ok());
  EXPECT_NEAR((*alone)[0], (*scores)[4], 1e-5);
}

TEST(ScoringPlan, TheMlpBaselineKeepsThePaddedPath) {
  NetworkConfig c;
  c.architecture = "mlp";
  auto model = CostModel::Create(c);
  EXPECT_FALSE(ScoringPlan::Supports(model->impl()));
}

}  // namespace
}  // namespace ucmoh

namespace ucmoh {
namespace {

// bf16 scoring (PredictOptions::precision) against float32, on a trained
// model's held-out tasks: close scores, the same ranking quality. Skips where
// oneDNN has no bf16 matmul for the CPU (Unsupported, by name).
TEST(ScoringPlan, Bf16RanksHeldOutTasksLikeFloat32) {
  ProgramSet set = test::SyntheticSet(40, 40, 1);
  auto split = MakeSplit(set, {SplitKind::kByTask, 0.25, 0, ""});
  ASSERT_TRUE(split.ok()) << split.status().message();
  ProgramSet train = set.Subset(split->train), held_out = set.Subset(split->test);
  auto model = CostModel::Create(NetworkConfig{});
  ASSERT_TRUE(model.ok());
  TrainOptions o;
  o.epochs = 15;
  o.learning_rate = 3e-3;
  o.programs_per_group = 32;
  o.groups_per_batch = 4;
  ASSERT_TRUE(Train(*model, train, o).ok());
  auto f32 = model->Predict(held_out);
  ASSERT_TRUE(f32.ok()) << f32.status().message();
  PredictOptions bf16_options;
  bf16_options.precision = ScoringPrecision::kBfloat16;
  auto bf16 = model->Predict(held_out, bf16_options);
  // Skips (also in CI) only where the CPU lacks the ISA: ScoreWithPlan says
  // kUnsupported for nothing else.
  if (!bf16.ok() && bf16.status().code() == Status::Code::kUnsupported) GTEST_SKIP() << bf16.status().message();
  ASSERT_TRUE(bf16.ok()) << bf16.status().message();
  ASSERT_EQ(bf16->size(), f32->size());
  double worst = 0, spread = 0;
  for (size_t i = 0; i < f32->size(); ++i) {
    worst = std::max(worst, std::abs(double((*bf16)[i]) - (*f32)[i]));
    spread = std::max(spread, std::abs(double((*f32)[i]) - (*f32)[0]));
  }
  const RankingMetrics a = EvaluateRanking(held_out, *f32), b = EvaluateRanking(held_out, *bf16);
  std::printf("bf16 vs float32 on %zu held-out programs: largest score difference %.4g (score spread %.3g), "
              "PCA %.4f vs %.4f, top-1 %.4f vs %.4f\n",
              f32->size(), worst, spread, b.pca, a.pca, b.top1, a.top1);
  EXPECT_GT(worst, 0) << "bf16 gave float32's exact scores: the bf16 path did not run";
  EXPECT_LT(worst, 0.02 * spread) << "bf16 scores are off by more than 2% of the score range";
  EXPECT_NEAR(b.pca, a.pca, 0.01);
  EXPECT_NEAR(b.top1, a.top1, 0.02);
}

TEST(ScoringPlan, UnknownPrecisionIsRefusedByName) {
  auto p = ParseScoringPrecision("fp8");
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("'fp8'"), std::string::npos);
  EXPECT_EQ(*ParseScoringPrecision("bf16"), ScoringPrecision::kBfloat16);
}

}  // namespace
}  // namespace ucmoh
