// LambdaRank against a value computed by hand (core-internal header).
#include <gtest/gtest.h>

#include "lambda_rank_loss.h"

namespace ucmoh {
namespace {

// Two programs ranked correctly: scores (1, 0), labels (1, 0.5).
//   1/D = (1, 1/log2 3 = 0.630930); maxDCG = 1 + (sqrt2 - 1)(0.630930) = 1.261340
//   G = (1, 0.414214) / maxDCG = (0.792808, 0.328394)
//   w = |1 - 0.630930| * |0.792808 - 0.328394| = 0.171404
//   pair loss = -log2 sigmoid(1) = 0.451944;  LambdaRank = w * 0.451944 = 0.077465
TEST(LambdaRankLoss, MatchesAHandComputedPair) {
  auto scores = torch::tensor({1.0f, 0.0f});
  auto labels = torch::tensor({1.0f, 0.5f});
  EXPECT_NEAR(LambdaRankLoss(scores, labels).item<double>(), 0.077465, 1e-5);
  EXPECT_NEAR(LambdaRankLoss(scores, labels, 1.0).item<double>(), 0.077465 + 0.451944, 1e-5);
}

TEST(LambdaRankLoss, GradientPushesTheFasterProgramUp) {
  auto scores = torch::tensor({0.0f, 0.5f, -0.2f}, torch::requires_grad());
  auto labels = torch::tensor({1.0f, 0.4f, 0.7f});
  LambdaRankLoss(scores, labels, 1.0).backward();
  auto g = scores.grad();
  EXPECT_LT(g[0].item<float>(), 0);  // descending the loss raises the fastest program
  EXPECT_GT(g[1].item<float>(), 0);  // and lowers the slowest, currently ranked first
}

TEST(LambdaRankLoss, EqualLabelsOrOneProgramGiveZero) {
  EXPECT_EQ(LambdaRankLoss(torch::tensor({1.0f, 2.0f}), torch::tensor({0.5f, 0.5f}), 1.0).item<float>(), 0);
  EXPECT_EQ(LambdaRankLoss(torch::tensor({1.0f}), torch::tensor({1.0f})).item<float>(), 0);
}

}  // namespace
}  // namespace ucmoh
