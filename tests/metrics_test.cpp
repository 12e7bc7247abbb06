// Ranking metrics and the ProgramSet operations they rely on, on hand-made
// sets whose answers are known.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "ucmoh/metrics.h"
#include "ucmoh/program_set.h"

namespace ucmoh {
namespace {

TokenMatrix OneToken(float value) {
  TokenMatrix m;
  m.num_tokens = 1;
  m.values.assign(kFeatureDim, value);
  return m;
}

struct TaskSpec {
  std::string intrinsic;
  std::vector<double> latencies;
};

// One task per spec, named t0, t1, ..., on target "x86".
ProgramSet MakeSet(const std::vector<TaskSpec>& specs) {
  ProgramSet set;
  for (size_t t = 0; t < specs.size(); ++t) {
    ProgramSet one;
    one.tasks.push_back({"t" + std::to_string(t), specs[t].intrinsic, "x86", {}, ""});
    for (double latency : specs[t].latencies) {
      one.tasks[0].programs.push_back(static_cast<int32_t>(one.tokens.size()));
      one.tokens.push_back(OneToken(static_cast<float>(latency)));
      one.latency_s.push_back(latency);
      one.task.push_back(0);
    }
    set.Append(one);
  }
  return set;
}

std::vector<float> NegatedLatency(const ProgramSet& set) {
  std::vector<float> s;
  for (double l : set.latency_s) s.push_back(static_cast<float>(-l));
  return s;
}

TEST(RankingMetrics, PerfectRankingScoresOne) {
  const ProgramSet set = MakeSet({{"x86.vnni", {3, 1, 2, 5, 4, 7, 6}}, {"x86.vnni", {2, 1}}});
  const RankingMetrics m = EvaluateRanking(set, NegatedLatency(set));
  EXPECT_DOUBLE_EQ(m.pca, 1.0);
  EXPECT_DOUBLE_EQ(m.top1, 1.0);
  EXPECT_DOUBLE_EQ(m.top5, 1.0);
  EXPECT_NEAR(m.ndcg, 1.0, 1e-12);
  EXPECT_EQ(m.tasks, 2);
  EXPECT_EQ(m.programs, 9);
}

TEST(RankingMetrics, ReversedRankingScoresZeroPca) {
  const ProgramSet set = MakeSet({{"x86.vnni", {1, 2, 4, 8}}});
  std::vector<float> scores(set.latency_s.begin(), set.latency_s.end());
  const RankingMetrics m = EvaluateRanking(set, scores);
  EXPECT_DOUBLE_EQ(m.pca, 0.0);
  EXPECT_DOUBLE_EQ(m.top1, 1.0 / 8.0);
  EXPECT_DOUBLE_EQ(m.top5, 1.0);  // all four are in the top five
  EXPECT_LT(m.ndcg, 1.0);
}

TEST(RankingMetrics, TiedScoresCountHalfAndTopKIsPessimistic) {
  const ProgramSet set = MakeSet({{"x86.vnni", {1, 2, 4, 8, 16, 32}}});
  const RankingMetrics m = EvaluateRanking(set, std::vector<float>(6, 0.5f));
  EXPECT_DOUBLE_EQ(m.pca, 0.5);
  EXPECT_DOUBLE_EQ(m.top1, 1.0 / 32.0);  // ties break against the model
  EXPECT_DOUBLE_EQ(m.top5, 1.0 / 2.0);   // the five slowest: best of them is 2
}

TEST(RankingMetrics, TopOneAndTopFive) {
  // Latencies 1..10; the model ranks 7, 6, 3, 9, 8 first, then the rest.
  const ProgramSet set = MakeSet({{"x86.vnni", {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}}});
  std::vector<float> scores(10, 0.f);
  const int order[] = {7, 6, 3, 9, 8};
  for (int i = 0; i < 5; ++i) scores[order[i] - 1] = 10.f - i;
  scores[0] = -1.f;  // the best program ranks somewhere low
  const RankingMetrics m = EvaluateRanking(set, scores);
  EXPECT_DOUBLE_EQ(m.top1, 1.0 / 7.0);
  EXPECT_DOUBLE_EQ(m.top5, 1.0 / 3.0);
}

TEST(RankingMetrics, NdcgOfTwoReversedPrograms) {
  const ProgramSet set = MakeSet({{"x86.vnni", {1, 2}}});
  const RankingMetrics m = EvaluateRanking(set, {0.f, 1.f});
  const double dcg = 0.5 + 1.0 / std::log2(3.0);
  const double ideal = 1.0 + 0.5 / std::log2(3.0);
  EXPECT_NEAR(m.ndcg, dcg / ideal, 1e-12);
}

TEST(RankingMetrics, EqualLatencyPairsAreNotCounted) {
  // Only (0,2) and (1,2) have distinct latencies; both are ordered correctly.
  const ProgramSet set = MakeSet({{"x86.vnni", {1, 1, 2}}});
  EXPECT_DOUBLE_EQ(EvaluateRanking(set, {1.f, 2.f, 0.f}).pca, 1.0);
}

TEST(RankingMetrics, SingleProgramTasksAreExcluded) {
  const ProgramSet set = MakeSet({{"x86.vnni", {1, 2, 3}}, {"x86.vnni", {5}}});
  std::vector<float> scores = NegatedLatency(set);
  scores[3] = -100.f;  // whatever the lone program scores, nothing changes
  const RankingMetrics m = EvaluateRanking(set, scores);
  EXPECT_EQ(m.tasks, 1);
  EXPECT_EQ(m.programs, 3);
  EXPECT_DOUBLE_EQ(m.pca, 1.0);
}

TEST(RankingMetrics, WrongNumberOfScoresEvaluatesNothing) {
  const ProgramSet set = MakeSet({{"x86.vnni", {1, 2, 3}}});
  EXPECT_EQ(EvaluateRanking(set, {1.f}).tasks, 0);
}

// The O(n log n) pair count against the definition, with many ties on both sides.
TEST(RankingMetrics, PcaMatchesBruteForce) {
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<int> small(0, 9);
  std::vector<double> latencies;
  for (int i = 0; i < 300; ++i) latencies.push_back(1 + small(rng));
  const ProgramSet set = MakeSet({{"x86.vnni", latencies}});
  std::vector<float> scores;
  for (int i = 0; i < 300; ++i) scores.push_back(static_cast<float>(small(rng)));

  double correct = 0;
  int64_t pairs = 0;
  for (int i = 0; i < 300; ++i)
    for (int j = 0; j < 300; ++j) {
      if (!(latencies[i] < latencies[j])) continue;
      ++pairs;
      correct += scores[i] > scores[j] ? 1.0 : scores[i] == scores[j] ? 0.5 : 0.0;
    }
  EXPECT_NEAR(EvaluateRanking(set, scores).pca, correct / pairs, 1e-12);
}

TEST(RankingMetrics, ByIntrinsicSeparatesIntrinsics) {
  const ProgramSet set = MakeSet({{"x86.vnni", {1, 2, 3}}, {"arm.sdot", {1, 2, 3}}});
  std::vector<float> scores = NegatedLatency(set);
  for (int32_t p : set.tasks[1].programs) scores[p] = -scores[p];  // arm.sdot reversed
  const auto by = EvaluateByIntrinsic(set, scores);
  ASSERT_EQ(by.size(), 2u);
  EXPECT_DOUBLE_EQ(by.at("x86.vnni").pca, 1.0);
  EXPECT_DOUBLE_EQ(by.at("arm.sdot").pca, 0.0);
  EXPECT_DOUBLE_EQ(EvaluateRanking(set, scores).pca, 0.5);
}

TEST(LifelongMetrics, AccuracyAndBackwardTransfer) {
  const std::vector<std::vector<double>> r = {
      {0.90, 0.00, 0.00},
      {0.80, 0.85, 0.00},
      {0.70, 0.80, 0.95},
  };
  EXPECT_NEAR(AverageAccuracy(r), (0.70 + 0.80 + 0.95) / 3, 1e-12);
  EXPECT_NEAR(BackwardTransfer(r), ((0.70 - 0.90) + (0.80 - 0.85)) / 2, 1e-12);
  EXPECT_DOUBLE_EQ(BackwardTransfer({{0.9}}), 0.0);
  EXPECT_DOUBLE_EQ(AverageAccuracy({{0.9}}), 0.9);
}

TEST(ProgramSet, LabelsAreNormalizedThroughputPerTask) {
  const ProgramSet set = MakeSet({{"x86.vnni", {2, 4}}, {"x86.vnni", {10, 5}}});
  const std::vector<float> labels = set.Labels();
  EXPECT_FLOAT_EQ(labels[0], 1.0f);
  EXPECT_FLOAT_EQ(labels[1], 0.5f);
  EXPECT_FLOAT_EQ(labels[2], 0.5f);
  EXPECT_FLOAT_EQ(labels[3], 1.0f);
}

TEST(ProgramSet, SubsetRebuildsTasksInFirstSeenOrder) {
  const ProgramSet set = MakeSet({{"x86.vnni", {1, 2}}, {"arm.sdot", {3, 4, 5}}});
  const ProgramSet sub = set.Subset({3, 1, 4});
  ASSERT_EQ(sub.size(), 3u);
  ASSERT_EQ(sub.tasks.size(), 2u);
  EXPECT_EQ(sub.tasks[0].key, "t1");
  EXPECT_EQ(sub.tasks[0].programs, (std::vector<int32_t>{0, 2}));
  EXPECT_EQ(sub.tasks[1].key, "t0");
  EXPECT_EQ(sub.latency_s, (std::vector<double>{4, 2, 5}));
  EXPECT_EQ(sub.task, (std::vector<int32_t>{0, 1, 0}));
}

TEST(ProgramSet, IntrinsicsFilterAndAppendMerge) {
  const ProgramSet set = MakeSet({{"x86.vnni", {1, 2}}, {"arm.sdot", {3}}, {"x86.vnni", {4}}});
  EXPECT_EQ(set.Intrinsics(), (std::vector<std::string>{"x86.vnni", "arm.sdot"}));
  EXPECT_EQ(set.OnlyIntrinsics({"x86.vnni"}).size(), 3u);
  EXPECT_EQ(set.OnlyIntrinsics({}).size(), 4u);

  ProgramSet merged = set.Subset({0});
  merged.Append(set.Subset({1, 2}));
  ASSERT_EQ(merged.tasks.size(), 2u);  // t0 appears in both halves and is merged
  EXPECT_EQ(merged.tasks[0].programs, (std::vector<int32_t>{0, 1}));
  EXPECT_EQ(merged.max_tokens(), 1);
}

}  // namespace
}  // namespace ucmoh
