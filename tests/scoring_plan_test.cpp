// The scoring plan (core/src/scoring_plan.cpp: packed tokens, oneDNN, the
// hand-written attention) computes what the LibTorch module computes, for
// every shape of network the CLI trains and for programs of every length,
// including chunks that split between programs.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <random>

#include "cost_model_impl.h"
#include "scoring_plan.h"
#include "synthetic_programs.h"

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
  // Head widths 8, 16 and 32 (the attention kernel's compiled widths) and 10
  // (its generic path).
  for (auto [hidden, heads, encoder, fc] : {std::tuple{32, 4, 1, 0}, {48, 3, 3, 3}, {16, 1, 2, 1}, {128, 8, 2, 2},
                                            {96, 3, 1, 1}, {40, 4, 1, 1}}) {
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
