// The lifelong sequence runner: on a real two-intrinsic CUTLASS sequence, over
// three split seeds, the default method and ewc+replay keep the first
// intrinsic's held-out ranking better than plain fine-tuning; on synthetic
// data, the matrices, summaries and snapshots of every method have the shape
// and the invariants they should.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <random>

#include "shared_data.h"
#include "tensorcore_plugin.h"
#include "ucmoh/features.h"
#include "ucmoh/lifelong.h"
#include "ucmoh/metrics.h"
#include "ucmoh/snapshot.h"

namespace ucmoh {
namespace {

using testing::CutlassDataDir;

// The FP16 and INT8 ResNet-50 files (h1688, h16816, i8816, i16832), lowered
// and featurized with the tensorcore plugin in-process, as `registry import` +
// BuildProgramSet would. A record that fails is left out and counted in
// `dropped`, which the test requires to stay zero; a failed import leaves the
// set empty.
struct RealSet {
  ProgramSet set;
  int dropped = 0;
};

const RealSet& RealCutlassSet() {
  static const RealSet real = [] {
    RealSet built;
    ProgramSet& out = built.set;
    const tensorcore::TensorCorePlugin plugin;
    std::vector<Record> records;
    for (const char* file : {"resnet50_cutlass_profiler_result.csv", "resnet50_cutlass_profiler_result_int8.csv"}) {
      auto imported = plugin.Import("cutlass", CutlassDataDir() + "/" + file);
      if (!imported.ok()) return built;
      records.insert(records.end(), imported->begin(), imported->end());
    }
    std::map<std::string, IntrinsicInfo> infos;
    for (const auto& info : plugin.Intrinsics()) infos[info.name] = info;
    std::map<std::string, int32_t> task_index;
    for (const auto& r : records) {
      auto ast = plugin.Lower(r.task, r.intrinsic, r.schedule, r.hardware);
      Expected<TokenMatrix> tokens =
          ast.ok() ? Featurize(*ast, r.hardware, infos[r.intrinsic]) : Expected<TokenMatrix>(ast.status());
      if (!tokens.ok() || !(r.latency.median_s > 0)) {
        ++built.dropped;
        continue;
      }
      auto [it, added] = task_index.emplace(r.task.key, static_cast<int32_t>(out.tasks.size()));
      if (added) out.tasks.push_back({r.task.key, r.intrinsic, r.target, {}});
      out.tasks[it->second].programs.push_back(static_cast<int32_t>(out.size()));
      out.task.push_back(it->second);
      out.latency_s.push_back(r.latency.median_s);
      out.tokens.push_back(std::move(*tokens));
    }
    return built;
  }();
  return real;
}

LifelongOptions SmallRun(LifelongMethod method, std::vector<std::string> sequence) {
  LifelongOptions o;
  o.sequence = std::move(sequence);
  o.step.method = method;
  o.step.network.hidden = 32;
  o.step.network.heads = 4;
  o.step.network.seed = 5;
  o.step.training.epochs = 8;
  o.step.training.learning_rate = 3e-3;
  o.step.training.programs_per_group = 32;
  o.step.training.groups_per_batch = 4;
  o.step.training.patience = 100;  // train every epoch: the forgetting comparison wants equal work
  o.step.training.val_fraction = 0;
  o.step.training.seed = 2;
  o.plasticity_reference = false;
  return o;
}

// (b) The real two-intrinsic sequence i8816 -> h16816 (an int8 intrinsic, then
// an fp16 one), on ten split seeds (each its held-out tasks and its training
// seed): after learning h16816, a method that keeps what it learned ranks
// i8816's held-out tasks (trained on by neither run) better than plain
// fine-tuning from the same start with the same data, by at least
// kMinMeanMargin PCA on average. Run for the default method (replay) and the
// EWC path (ewc+replay), whose penalty and Fisher snapshot are checked too.
// i8816 has few tasks, so one seed's held-out PCA moves by ±0.05: measured on
// 2026-11-29 (Xeon EMR) with the step's defaults of today (train's training
// defaults; every step after the first, fine-tuning's too, starts half fresh;
// 1024 rehearsal programs, all of i8816's), replay's margins over fine-tuning
// were +0.027 on average (7 of 10 seeds >= 0, the worst -0.033), ewc+replay's
// +0.039 (7 of 10, the worst -0.036); on 2026-11-27 with whole weights and
// 512 programs +0.030 and +0.037, with the step's earlier defaults +0.031 and
// +0.021. Fine-tuning run in the method's place (margin
// 0) fails it. It used to be one seed of h1688 -> h16816, two fp16 intrinsics so
// alike that fine-tuning on the second does not forget the first: the methods
// differed by 0.0013, and a change in how initial weights were drawn made
// them tie. What the figures say about EWC is issue 38's: here it earns
// nothing over replay alone.
const std::vector<std::string> kSequence = {"tensorcore.i8816", "tensorcore.h16816"};
constexpr uint64_t kSeeds[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
constexpr double kMinMeanMargin = 0.01;

LifelongOptions SeededRun(LifelongMethod method, uint64_t seed) {
  LifelongOptions o = SmallRun(method, kSequence);
  o.split_seed = seed;
  o.step.training.seed = 2 + seed;
  return o;
}

const LifelongResult& FinetuneRun(uint64_t seed) {
  static std::map<uint64_t, LifelongResult> runs;
  if (!runs.count(seed)) {
    auto r = RunLifelong(RealCutlassSet().set, SeededRun(LifelongMethod::kFinetune, seed));
    EXPECT_TRUE(r.ok()) << r.status().message();
    runs[seed] = r.ok() ? std::move(*r) : LifelongResult{};
  }
  return runs[seed];
}

void ExpectEwcState(const LifelongResult& kept) {
  EXPECT_GT(kept.steps[1].penalty, 0);
  // The snapshot after step 0 is the (normalised) Fisher over i8816's training data.
  auto snapshot = DeserializeSnapshot(kept.steps[0].snapshot);
  ASSERT_TRUE(snapshot.ok()) << snapshot.status().message();
  EXPECT_EQ(snapshot->intrinsics, std::vector<std::string>{kSequence[0]});
  EXPECT_EQ(snapshot->method, "fisher");
  EXPECT_EQ(snapshot->metadata.count("importance_mean"), 1u);
}

void ExpectLessForgettingThanFinetuning(LifelongMethod method) {
  ASSERT_EQ(RealCutlassSet().dropped, 0) << "records of the CUTLASS files that did not lower or featurize";
  ASSERT_EQ(RealCutlassSet().set.size(), 1102u + 366u) << "every row of the FP16 and INT8 ResNet-50 files";
  double margin_sum = 0;
  for (uint64_t seed : kSeeds) {
    const LifelongResult& finetune = FinetuneRun(seed);
    ASSERT_EQ(finetune.steps.size(), 2u);
    auto kept = RunLifelong(RealCutlassSet().set, SeededRun(method, seed));
    ASSERT_TRUE(kept.ok()) << kept.status().message();
    EXPECT_DOUBLE_EQ(finetune.pca[0][0], kept->pca[0][0]) << "step 0 is the same model in both runs";
    const double margin = kept->pca[1][0] - finetune.pca[1][0];
    std::printf("seed %llu: i8816 held-out PCA after i8816 %.4f; after h16816: finetune %.4f, %s %.4f "
                "(margin %+.4f, penalty %.5f, %lld replayed)\n",
                static_cast<unsigned long long>(seed), finetune.pca[0][0], finetune.pca[1][0],
                LifelongMethodName(method), kept->pca[1][0], margin, kept->steps[1].penalty,
                static_cast<long long>(kept->steps[1].replayed_programs));
    EXPECT_EQ(kept->steps[1].replayed_programs > 0, MethodReplays(method));
    if (MethodUsesEwc(method)) ExpectEwcState(*kept);
    margin_sum += margin;
  }
  const double mean_margin = margin_sum / std::size(kSeeds);
  std::printf("%s: mean margin over fine-tuning %+.4f\n", LifelongMethodName(method), mean_margin);
  EXPECT_GE(mean_margin, kMinMeanMargin) << "i8816's held-out PCA after h16816, mean over the seeds";
}

TEST(LifelongReal, DefaultMethodForgetsTheFirstIntrinsicLessThanFinetuning) {
  UCMOH_SKIP_WITHOUT_SHARED_DATA();
  ExpectLessForgettingThanFinetuning(LifelongStepOptions{}.method);
}

TEST(LifelongReal, EwcReplayForgetsTheFirstIntrinsicLessThanFinetuning) {
  UCMOH_SKIP_WITHOUT_SHARED_DATA();
  ExpectLessForgettingThanFinetuning(LifelongMethod::kEwcReplay);
}

// Synthetic tasks over three toy intrinsics whose latency depends on
// different token features, so sequential training has something to forget.
ProgramSet ToySet() {
  std::mt19937_64 rng(4);
  std::uniform_real_distribution<float> u(0.f, 4.f);
  ProgramSet set;
  const std::vector<std::string> intrinsics = {"toy.a", "toy.b", "toy.c"};
  for (int t = 0; t < 30; ++t) {
    const int which = t % 3;
    TaskGroup task{"task" + std::to_string(t), intrinsics[which], "toy", {}, ""};
    for (int p = 0; p < 16; ++p) {
      TokenMatrix m;
      m.num_tokens = 3;
      m.values.assign(3 * kFeatureDim, 0.f);
      for (int k = 0; k < 3; ++k) {
        m.values[static_cast<size_t>(k) * kFeatureDim + k] = 1.f;
        for (int d : {5, 10, 20}) m.values[static_cast<size_t>(k) * kFeatureDim + d] = u(rng);
      }
      const double cost = (which == 0 ? 0.3 : -0.3) * m.row(1)[10] + (which == 2 ? 0.2 : 0.0) * m.row(2)[20];
      task.programs.push_back(static_cast<int32_t>(set.size()));
      set.task.push_back(t);
      set.latency_s.push_back(1e-3 * std::exp(cost));
      set.tokens.push_back(std::move(m));
    }
    set.tasks.push_back(task);
  }
  return set;
}

LifelongOptions ToyRun(LifelongMethod method) {
  LifelongOptions o = SmallRun(method, {"toy.a", "toy.b", "toy.c"});
  o.step.network.hidden = 16;
  o.step.network.heads = 4;
  o.step.training.epochs = 3;
  o.step.training.programs_per_group = 16;
  o.test_fraction = 0.3;
  o.step.lambda = 1;
  o.plasticity_reference = true;
  return o;
}

void ExpectShape(const LifelongResult& r, size_t n) {
  ASSERT_EQ(r.pca.size(), n);
  ASSERT_EQ(r.top1.size(), n);
  ASSERT_EQ(r.steps.size(), n);
  for (size_t i = 0; i < n; ++i) {
    ASSERT_EQ(r.pca[i].size(), n);
    for (double v : r.pca[i]) EXPECT_TRUE(v >= 0 && v <= 1) << v;
    for (double v : r.top1[i]) EXPECT_TRUE(v > 0 && v <= 1) << v;
    EXPECT_EQ(r.steps[i].train_loss.size(), n);
  }
  EXPECT_DOUBLE_EQ(r.acc_pca, AverageAccuracy(r.pca));
  EXPECT_DOUBLE_EQ(r.bwt_pca, BackwardTransfer(r.pca));
  EXPECT_DOUBLE_EQ(r.bwt_top1, BackwardTransfer(r.top1));
  ASSERT_EQ(r.plasticity_gap_pca.size(), n);
  EXPECT_DOUBLE_EQ(r.plasticity_gap_pca[0], 0.0);  // step 0 is the model trained on it alone
}

TEST(LifelongToy, SeparateNeverForgetsAndHasNoPlasticityGap) {
  auto r = RunLifelong(ToySet(), ToyRun(LifelongMethod::kSeparate));
  ASSERT_TRUE(r.ok()) << r.status().message();
  ExpectShape(*r, 3);
  EXPECT_DOUBLE_EQ(r->bwt_pca, 0.0);
  EXPECT_DOUBLE_EQ(r->bwt_top1, 0.0);
  for (double g : r->plasticity_gap_pca) EXPECT_DOUBLE_EQ(g, 0.0);
  EXPECT_TRUE(r->steps[0].snapshot.empty());
}

TEST(LifelongToy, EwcMethodsKeepOneNormalisedSnapshotPerIntrinsic) {
  for (auto method : {LifelongMethod::kEwc, LifelongMethod::kOnlineEwc, LifelongMethod::kEwcReplay}) {
    LifelongOptions o = ToyRun(method);
    o.step.gamma = 0.5;
    auto r = RunLifelong(ToySet(), o);
    ASSERT_TRUE(r.ok()) << r.status().message();
    ExpectShape(*r, 3);
    for (size_t i = 0; i < 3; ++i) {
      auto s = DeserializeSnapshot(r->steps[i].snapshot);
      ASSERT_TRUE(s.ok()) << s.status().message();
      EXPECT_EQ(s->intrinsics, std::vector<std::string>{r->intrinsics[i]});  // one per intrinsic
      EXPECT_EQ(r->steps[i].snapshot_sha256.size(), 64u);
      double sum = 0;
      for (const auto& t : s->tensors)
        for (float v : t.importance) sum += v;
      EXPECT_NEAR(sum / static_cast<double>(s->num_values()), 1.0, 1e-3) << "importance normalised to mean 1";
    }
    EXPECT_GT(r->steps[2].penalty, 0) << LifelongMethodName(method);
    EXPECT_EQ(r->steps[2].replayed_programs > 0, MethodReplays(method)) << LifelongMethodName(method);
  }
}

TEST(LifelongToy, LambdaRulePicksTheBestEligibleCandidate) {
  LifelongOptions o = ToyRun(LifelongMethod::kEwc);
  o.sequence = {"toy.a", "toy.b"};
  o.step.lambda_grid = {10, 0, 10};  // unsorted, with a duplicate
  o.plasticity_reference = false;
  // The rule needs validation tasks: 2 of toy.b's 7 training tasks.
  o.step.training.val_fraction = 0.3;
  o.step.training.min_validation_tasks = 1;
  auto r = RunLifelong(ToySet(), o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(r->steps[0].lambda_trials.empty());
  const auto& trials = r->steps[1].lambda_trials;
  ASSERT_EQ(trials.size(), 2u);
  EXPECT_EQ(trials[0].lambda, 0.0);
  double best_new = 0, best_eligible = -1;
  for (const auto& t : trials) best_new = std::max(best_new, t.new_validation_pca);
  for (const auto& t : trials) {
    EXPECT_GT(t.new_validation_pca, 0) << "scored on toy.b's validation tasks";
    EXPECT_GT(t.validation_pca, 0);
    EXPECT_EQ(t.eligible, t.new_validation_pca >= best_new - 0.02);
    if (t.eligible) best_eligible = std::max(best_eligible, t.validation_pca);
  }
  for (const auto& t : trials)
    if (t.lambda == r->steps[1].lambda) {
      EXPECT_TRUE(t.eligible);
      EXPECT_DOUBLE_EQ(t.validation_pca, best_eligible);
    }
}

// Without validation tasks the rule compares the candidates on a fifth of
// every training task's programs, held back from them, then trains the chosen
// λ again on everything: the kept model is exactly the one a step at that λ
// gives.
TEST(LifelongToy, LambdaGridWithoutValidationTasksChoosesOnHeldBackPrograms) {
  LifelongOptions o = ToyRun(LifelongMethod::kEwcReplay);
  o.sequence = {"toy.a", "toy.b"};
  o.step.lambda_grid = {0.1, 1, 10};
  o.plasticity_reference = false;
  o.step.training.val_fraction = 0.3;
  o.step.training.min_validation_tasks = 3;  // toy.b holds out 2: no validation tasks
  auto grid = RunLifelong(ToySet(), o);
  ASSERT_TRUE(grid.ok()) << grid.status().message();
  const auto& trials = grid->steps[1].lambda_trials;
  ASSERT_EQ(trials.size(), 3u);
  double best_new = 0, best_eligible = -1;
  for (const auto& t : trials) best_new = std::max(best_new, t.new_validation_pca);
  for (const auto& t : trials) {
    EXPECT_TRUE(t.held_back_programs);
    EXPECT_GT(t.new_validation_pca, 0) << "scored on toy.b's held-back programs";
    EXPECT_GT(t.validation_pca, 0);
    EXPECT_EQ(t.eligible, t.new_validation_pca >= best_new - 0.02);
    if (t.eligible) best_eligible = std::max(best_eligible, t.validation_pca);
  }
  const double chosen = grid->steps[1].lambda;
  bool found = false;
  for (const auto& t : trials)
    if (t.lambda == chosen) {
      found = true;
      EXPECT_DOUBLE_EQ(t.validation_pca, best_eligible);
    }
  ASSERT_TRUE(found) << chosen;
  o.step.lambda_grid = {};
  o.step.lambda = chosen;
  auto fixed = RunLifelong(ToySet(), o);
  ASSERT_TRUE(fixed.ok()) << fixed.status().message();
  EXPECT_TRUE(fixed->steps[1].lambda_trials.empty());
  EXPECT_EQ(grid->steps[1].train.final_train_loss, fixed->steps[1].train.final_train_loss);
  EXPECT_EQ(grid->pca, fixed->pca) << "the chosen lambda is trained again on every program";
}

// Held-back programs need a task with two: where the new intrinsic has no
// validation tasks and no such task, the grid has nothing to compare on and
// the step is refused before it trains, naming the intrinsic.
TEST(LifelongToy, LambdaGridWithNothingToHoldBackIsRefused) {
  const ProgramSet full = ToySet();
  std::vector<int32_t> keep;
  for (const auto& task : full.tasks) {
    if (task.intrinsic == "toy.b") keep.push_back(task.programs.front());
    else keep.insert(keep.end(), task.programs.begin(), task.programs.end());
  }
  std::sort(keep.begin(), keep.end());
  LifelongOptions o = ToyRun(LifelongMethod::kEwcReplay);
  o.sequence = {"toy.a", "toy.b"};
  o.step.lambda_grid = {0.1, 1, 10};
  o.plasticity_reference = false;
  o.step.training.val_fraction = 0.3;
  o.step.training.min_validation_tasks = 3;
  auto r = RunLifelong(full.Subset(keep), o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("toy.b: --lambda-grid has nothing to choose lambda by"), std::string::npos)
      << r.status().message();
}

// keep_weights < 1 shrinks the model toward a fresh network before every step
// but the first (which starts fresh anyway): step 0 trains exactly as with 1,
// step 1 does not.
TEST(LifelongToy, KeepWeightsChangesOnlyTheStepsAfterTheFirst) {
  LifelongOptions o = ToyRun(LifelongMethod::kReplay);
  o.sequence = {"toy.a", "toy.b"};
  o.plasticity_reference = false;
  o.step.keep_weights = 1;  // the weights as they are (the default is 0.5)
  auto kept = RunLifelong(ToySet(), o);
  o.step.keep_weights = 0.5;
  auto shrunk = RunLifelong(ToySet(), o);
  ASSERT_TRUE(kept.ok() && shrunk.ok());
  EXPECT_EQ(kept->steps[0].train_loss, shrunk->steps[0].train_loss);
  EXPECT_EQ(kept->pca[0], shrunk->pca[0]);
  EXPECT_NE(kept->steps[1].train_loss, shrunk->steps[1].train_loss);
}

TEST(LifelongToy, JointAndFinetuneRunAndBadOptionsAreRefused) {
  for (auto method : {LifelongMethod::kJoint, LifelongMethod::kFinetune}) {
    auto r = RunLifelong(ToySet(), ToyRun(method));
    ASSERT_TRUE(r.ok()) << r.status().message();
    ExpectShape(*r, 3);
    EXPECT_TRUE(r->steps[1].snapshot.empty());
    EXPECT_EQ(r->steps[1].penalty, 0.0);
  }
  LifelongOptions o = ToyRun(LifelongMethod::kEwc);
  o.step.lambda = -1;
  EXPECT_EQ(RunLifelong(ToySet(), o).status().code(), Status::Code::kInvalidArgument);
  o.step.lambda = 1;
  o.step.keep_weights = 0;  // no share of the model: not a step, a restart
  EXPECT_NE(RunLifelong(ToySet(), o).status().message().find("keep_weights must be in (0, 1]"), std::string::npos);
  o.step.keep_weights = 1;
  o.sequence = {"toy.a", "toy.a"};
  EXPECT_FALSE(RunLifelong(ToySet(), o).ok());
  o.sequence = {"toy.a", "toy.zzz"};
  EXPECT_EQ(RunLifelong(ToySet(), o).status().code(), Status::Code::kNotFound);
  o.sequence = {};
  EXPECT_FALSE(RunLifelong(ToySet(), o).ok());
  EXPECT_EQ(ParseLifelongMethod("online-ewc").value(), LifelongMethod::kOnlineEwc);
  EXPECT_EQ(ParseLifelongMethod("ewc+replay").value(), LifelongMethod::kEwcReplay);
  EXPECT_EQ(ParseLifelongMethod("replay").value(), LifelongMethod::kReplay);
  EXPECT_FALSE(ParseLifelongMethod("nope").ok());
}

}  // namespace
}  // namespace ucmoh
