// Fisher importance and the EWC penalty on a tiny network: the Fisher of the
// decoder bias against a hand derivation of the LambdaRank gradient, every
// entry against finite differences, the penalty against its formula, the
// online merge against γ·F_old + F_new, and a strong penalty holding the
// parameters in place during fine-tuning.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <random>

#include "cost_model_impl.h"
#include "training_penalty.h"
#include "ucmoh/cost_model.h"
#include "ucmoh/ewc.h"
#include "ucmoh/fisher.h"
#include "ucmoh/snapshot.h"
#include "ucmoh/training.h"

namespace ucmoh {
namespace {

NetworkConfig TinyNetwork() {
  NetworkConfig c;
  c.hidden = 4;
  c.heads = 1;
  c.encoder_layers = 1;
  c.fc_blocks = 1;
  c.seed = 11;
  return c;
}

// `tasks` tasks of `programs` programs with random tokens; token counts vary
// (1..3) so that the decoder bias, which adds once per token, has a gradient.
ProgramSet RandomSet(int tasks, int programs, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(0.f, 2.f);
  std::uniform_real_distribution<double> lat(1e-3, 3e-3);
  ProgramSet set;
  for (int t = 0; t < tasks; ++t) {
    TaskGroup task{"task" + std::to_string(t), "toy.a", "toy", {}, ""};
    for (int p = 0; p < programs; ++p) {
      TokenMatrix m;
      m.num_tokens = 1 + (p + t) % 3;
      m.values.assign(static_cast<size_t>(m.num_tokens) * kFeatureDim, 0.f);
      for (int k = 0; k < m.num_tokens; ++k)
        for (int d : {0, 5, 10, 20, 33}) m.values[static_cast<size_t>(k) * kFeatureDim + d] = u(rng);
      task.programs.push_back(static_cast<int32_t>(set.size()));
      set.task.push_back(t);
      set.latency_s.push_back(lat(rng));
      set.tokens.push_back(std::move(m));
    }
    set.tasks.push_back(task);
  }
  return set;
}

CostModel TinyModel(const ProgramSet& set) {
  auto model = CostModel::Create(TinyNetwork());
  EXPECT_TRUE(model.ok());
  model->impl().normalizer.Fit(set);
  return *model;
}

const SnapshotTensor& Tensor(const Snapshot& s, const std::string& name) {
  const SnapshotTensor* t = s.Find(name);
  EXPECT_NE(t, nullptr) << name;
  static const SnapshotTensor kNone;
  return t ? *t : kNone;
}

// (a) By hand: a two-program group (a faster than b) has LambdaRank loss
//   L = w · −log2 σ(d),  d = s_a − s_b,
//   w = |1/log2(2) − 1/log2(3)| · |g_a − g_b|,  g = (2^y − 1) / IDCG,
//   IDCG = (2^y_a − 1)/log2(2) + (2^y_b − 1)/log2(3),  y_a = 1, y_b = lat_a / lat_b,
// so ∂L/∂d = −w (1 − σ(d)) / ln 2. The score is Σ over valid tokens of the
// decoder output, so ∂s/∂(decoder bias) = number of tokens and
//   ∂L/∂b = ∂L/∂d · (T_a − T_b);  F_b = mean over groups of (∂L/∂b)².
TEST(Fisher, DecoderBiasMatchesHandDerivation) {
  ProgramSet set = RandomSet(5, 2, 3);
  CostModel model = TinyModel(set);
  auto fisher = ComputeFisher(model, set);
  ASSERT_TRUE(fisher.ok()) << fisher.status().message();
  auto scores = model.Predict(set);
  ASSERT_TRUE(scores.ok());

  double expected = 0;
  for (const auto& task : set.tasks) {
    int a = task.programs[0], b = task.programs[1];
    if (set.latency_s[a] > set.latency_s[b]) std::swap(a, b);
    const double ya = 1.0, yb = set.latency_s[a] / set.latency_s[b];
    const double d2 = 1.0 / std::log2(3.0);
    const double idcg = (std::pow(2.0, ya) - 1) + (std::pow(2.0, yb) - 1) * d2;
    const double w = (1.0 - d2) * std::abs(std::pow(2.0, ya) - std::pow(2.0, yb)) / idcg;
    const double d = (*scores)[a] - (*scores)[b];
    const double dl_dd = -w * (1.0 - 1.0 / (1.0 + std::exp(-d))) / std::log(2.0);
    const double g = dl_dd * (set.tokens[a].num_tokens - set.tokens[b].num_tokens);
    expected += g * g / static_cast<double>(set.tasks.size());
  }
  const auto& bias = Tensor(*fisher, "decoder.bias");
  ASSERT_EQ(bias.importance.size(), 1u);
  EXPECT_GT(expected, 0);
  EXPECT_NEAR(bias.importance[0], expected, 1e-4 * expected);
  EXPECT_EQ(fisher->method, "fisher");
  EXPECT_EQ(fisher->intrinsics, std::vector<std::string>{"toy.a"});
  EXPECT_EQ(fisher->metadata.at("groups"), "5");
  // The anchor is the model's parameters.
  const auto params = model.Parameters();
  ASSERT_EQ(params.size(), fisher->tensors.size());
  for (size_t i = 0; i < params.size(); ++i) {
    EXPECT_EQ(params[i].name, fisher->tensors[i].name);
    EXPECT_EQ(params[i].values, fisher->tensors[i].anchor);
  }
}

// (a) Every entry: the Fisher of a one-task set is the squared gradient of
// that task's loss, checked against central finite differences; the Fisher
// of the whole set is the mean over its groups.
TEST(Fisher, EveryEntryMatchesFiniteDifferences) {
  ProgramSet set = RandomSet(3, 4, 8);
  CostModel model = TinyModel(set);
  auto whole = ComputeFisher(model, set);
  ASSERT_TRUE(whole.ok());
  std::vector<std::vector<float>> mean_of_groups;
  for (const auto& task : set.tasks) {
    ProgramSet one = set.Subset(task.programs);
    auto f = ComputeFisher(model, one);
    ASSERT_TRUE(f.ok());
    torch::NoGradGuard no_grad;
    // Finite differences on a float64 copy of the network (the normalizer in
    // float64 too, so the whole forward pass and the loss run in double).
    CostModel wide = model.Clone();
    wide.impl().net->to(torch::kDouble);
    wide.impl().normalizer.mean = wide.impl().normalizer.mean.to(torch::kDouble);
    wide.impl().normalizer.inv_std = wide.impl().normalizer.inv_std.to(torch::kDouble);
    auto params = wide.impl().net->named_parameters();
    int checked = 0, mismatched = 0;
    for (size_t ti = 0; ti < f->tensors.size(); ++ti) {
      const auto& t = f->tensors[ti];
      torch::Tensor flat = params[t.name].view(-1);
      for (size_t k = 0; k < t.importance.size(); ++k) {
        const double eps = 1e-6;
        const double original = flat[k].item<double>();
        flat[k] = original + eps;
        const double up = *RankingLoss(wide, one);
        flat[k] = original - eps;
        const double down = *RankingLoss(wide, one);
        flat[k] = original;
        const double fd = (up - down) / (2 * eps);
        const double ad = std::sqrt(static_cast<double>(t.importance[k]));
        ++checked;
        if (std::abs(ad - std::abs(fd)) > 1e-6 + 1e-3 * std::abs(fd)) {
          ++mismatched;
          ADD_FAILURE_AT(__FILE__, __LINE__) << t.name << "[" << k << "]: |autograd| " << ad << " vs fd " << fd;
        }
      }
      if (mean_of_groups.size() <= ti) mean_of_groups.emplace_back(t.importance.size(), 0.f);
      for (size_t k = 0; k < t.importance.size(); ++k)
        mean_of_groups[ti][k] += t.importance[k] / static_cast<float>(set.tasks.size());
    }
    EXPECT_GT(checked, 300);
    EXPECT_EQ(mismatched, 0);
  }
  ASSERT_FALSE(whole->tensors.empty());
  ASSERT_EQ(whole->tensors.size(), mean_of_groups.size());
  for (size_t ti = 0; ti < whole->tensors.size(); ++ti)
    for (size_t k = 0; k < mean_of_groups[ti].size(); ++k)
      EXPECT_NEAR(whole->tensors[ti].importance[k], mean_of_groups[ti][k], 1e-5 * (1 + mean_of_groups[ti][k]));
}

TEST(Fisher, RefusesUntrainedModelsAndEmptyData) {
  ProgramSet set = RandomSet(2, 3, 1);
  auto fresh = CostModel::Create(TinyNetwork());
  ASSERT_TRUE(fresh.ok());
  EXPECT_FALSE(ComputeFisher(*fresh, set).ok());
  CostModel model = TinyModel(set);
  ProgramSet singletons = set.Subset({0, 3});  // one program per task
  EXPECT_FALSE(ComputeFisher(model, singletons).ok());
}

Snapshot ShiftedSnapshot(const CostModel& model, float shift, float importance, const std::string& intrinsic) {
  Snapshot s;
  s.method = "fisher";
  s.intrinsics = {intrinsic};
  for (auto& p : model.impl().net->named_parameters()) {
    SnapshotTensor t;
    t.name = p.key();
    t.shape = p.value().sizes().vec();
    auto flat = p.value().detach().contiguous().view(-1);
    for (int64_t k = 0; k < flat.numel(); ++k) {
      t.anchor.push_back(flat[k].item<float>() + shift);
      t.importance.push_back(importance * static_cast<float>(1 + k % 3));
    }
    s.tensors.push_back(std::move(t));
  }
  return s;
}

// λ Σ_k Σ_i b^k_i (θ_i − θ*^k_i)², computed from Parameters() by hand.
double HandPenalty(const CostModel& model, const std::vector<Snapshot>& snapshots, double lambda) {
  double sum = 0;
  for (const auto& p : model.Parameters())
    for (const auto& s : snapshots) {
      const SnapshotTensor* t = s.Find(p.name);
      for (size_t k = 0; k < p.values.size(); ++k) {
        const double d = static_cast<double>(p.values[k]) - t->anchor[k];
        sum += t->importance[k] * d * d;
      }
    }
  return lambda * sum;
}

TEST(Ewc, PenaltyIsLambdaTimesImportanceWeightedSquaredDistance) {
  ProgramSet set = RandomSet(2, 3, 1);
  CostModel model = TinyModel(set);
  std::vector<Snapshot> two = {ShiftedSnapshot(model, 0.1f, 0.5f, "a"), ShiftedSnapshot(model, -0.3f, 2.0f, "b")};
  ASSERT_TRUE(CheckSnapshotFits(two[0], model).ok());
  for (double lambda : {0.0, 1.0, 7.5}) {
    auto penalty = MakeEwcPenalty(two, lambda);
    const double want = HandPenalty(model, two, lambda);
    EXPECT_NEAR(EwcPenaltyValue(*penalty, model), want, 1e-5 * (1 + want)) << "lambda " << lambda;
  }
  EXPECT_EQ(EwcPenaltyValue(*MakeEwcPenalty({}, 3.0), model), 0.0);
  // At the anchor itself the penalty is zero.
  EXPECT_EQ(EwcPenaltyValue(*MakeEwcPenalty({ShiftedSnapshot(model, 0.f, 1.f, "a")}, 100.0), model), 0.0);

  Snapshot wrong = two[0];
  wrong.tensors[0].name = "nope";
  EXPECT_FALSE(CheckSnapshotFits(wrong, model).ok());
  wrong = two[0];
  wrong.tensors[0].shape = {static_cast<int64_t>(wrong.tensors[0].anchor.size())};
  EXPECT_FALSE(CheckSnapshotFits(wrong, model).ok());
}

TEST(Ewc, OnlineMergeDecaysOldImportanceAndMovesTheAnchor) {
  ProgramSet set = RandomSet(2, 3, 1);
  CostModel model = TinyModel(set);
  Snapshot old = ShiftedSnapshot(model, 0.1f, 0.5f, "a");
  Snapshot fresh = ShiftedSnapshot(model, -0.3f, 2.0f, "b");
  auto merged = MergeOnline(old, fresh, 0.25);
  ASSERT_TRUE(merged.ok()) << merged.status().message();
  EXPECT_EQ(merged->method, "online");
  EXPECT_EQ(merged->intrinsics, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(merged->metadata.at("merged"), "2");
  ASSERT_EQ(merged->tensors.size(), fresh.tensors.size());
  ASSERT_FALSE(merged->tensors.empty());
  for (size_t i = 0; i < merged->tensors.size(); ++i) {
    EXPECT_EQ(merged->tensors[i].anchor, fresh.tensors[i].anchor);
    for (size_t k = 0; k < merged->tensors[i].importance.size(); ++k)
      EXPECT_FLOAT_EQ(merged->tensors[i].importance[k],
                      0.25f * old.tensors[i].importance[k] + fresh.tensors[i].importance[k]);
  }
  auto third = MergeOnline(*merged, fresh, 1.0);
  ASSERT_TRUE(third.ok());
  EXPECT_EQ(third->metadata.at("merged"), "3");
  Snapshot other = fresh;
  other.tensors.pop_back();
  EXPECT_FALSE(MergeOnline(old, other, 0.5).ok());
  EXPECT_FALSE(MergeOnline(old, fresh, -1).ok());
}

double Distance(const CostModel& a, const Snapshot& s) {
  double sum = 0;
  for (const auto& p : a.Parameters()) {
    const SnapshotTensor* t = s.Find(p.name);
    for (size_t k = 0; k < p.values.size(); ++k) sum += std::pow(p.values[k] - t->anchor[k], 2);
  }
  return std::sqrt(sum);
}

// Through Train(): a strong penalty keeps fine-tuning next to the anchor.
TEST(Ewc, StrongPenaltyHoldsParametersDuringFinetuning) {
  ProgramSet first = RandomSet(6, 8, 21), second = RandomSet(6, 8, 22);
  auto model = CostModel::Create(TinyNetwork());
  ASSERT_TRUE(model.ok());
  TrainOptions o;
  o.epochs = 3;
  o.val_fraction = 0;
  o.learning_rate = 1e-2;
  ASSERT_TRUE(Train(*model, first, o).ok());
  auto fisher = ComputeFisher(*model, first);
  ASSERT_TRUE(fisher.ok());
  // Uniform importance, so every parameter is held.
  Snapshot uniform = *fisher;
  for (auto& t : uniform.tensors) std::fill(t.importance.begin(), t.importance.end(), 1.0f);

  o.mode = TransferMode::kFinetune;
  o.epochs = 5;
  CostModel plain = model->Clone(), held = model->Clone();
  ASSERT_TRUE(Train(plain, second, o).ok());
  auto penalty = MakeEwcPenalty({uniform}, 1000.0);
  o.penalty = penalty.get();
  ASSERT_TRUE(Train(held, second, o).ok());
  const double moved_plain = Distance(plain, uniform), moved_held = Distance(held, uniform);
  EXPECT_GT(moved_plain, 0);
  EXPECT_LT(moved_held, 0.2 * moved_plain) << "plain " << moved_plain << ", held " << moved_held;
}

// NormalizeImportance: the Fisher of a loss scaled by c is c² times larger,
// and after normalisation the penalty is the same, so one λ means the same
// on an intrinsic whose loss (or record count) is on another scale.
TEST(Ewc, NormalisedFisherMakesThePenaltyInvariantToScalingTheLoss) {
  ProgramSet first = RandomSet(6, 8, 31), second = RandomSet(6, 8, 32);
  auto model = CostModel::Create(TinyNetwork());
  ASSERT_TRUE(model.ok());
  TrainOptions o;
  o.epochs = 2;
  o.val_fraction = 0;
  ASSERT_TRUE(Train(*model, first, o).ok());
  FisherOptions plain, scaled;
  scaled.loss_scale = 10.0;
  auto f1 = ComputeFisher(*model, first, plain);
  auto f10 = ComputeFisher(*model, first, scaled);
  ASSERT_TRUE(f1.ok() && f10.ok());
  CostModel moved = model->Clone();
  o.mode = TransferMode::kFinetune;
  ASSERT_TRUE(Train(moved, second, o).ok());
  const double raw1 = EwcPenaltyValue(*MakeEwcPenalty({*f1}, 1.0), moved);
  const double raw10 = EwcPenaltyValue(*MakeEwcPenalty({*f10}, 1.0), moved);
  ASSERT_GT(raw1, 0);
  EXPECT_NEAR(raw10 / raw1, 100.0, 1e-2) << "the raw Fisher scales with the loss squared";
  NormalizeImportance(*f1);
  NormalizeImportance(*f10);
  const double norm1 = EwcPenaltyValue(*MakeEwcPenalty({*f1}, 1.0), moved);
  const double norm10 = EwcPenaltyValue(*MakeEwcPenalty({*f10}, 1.0), moved);
  EXPECT_NEAR(norm10 / norm1, 1.0, 1e-5);
  EXPECT_NE(norm1, raw1);
  EXPECT_EQ(f1->metadata.count("importance_mean"), 1u);
}

}  // namespace
}  // namespace ucmoh
