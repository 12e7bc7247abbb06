// The UCMoH network and its training: it learns a ranking, saves and loads
// exactly, and each transfer mode changes only what it should.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>

#include "ucmoh/cost_model.h"
#include "ucmoh/metrics.h"
#include "ucmoh/splits.h"
#include "ucmoh/training.h"
#include "synthetic_programs.h"

namespace ucmoh {
namespace {

using test::SmallNetwork;
using test::SyntheticSet;
using test::TempPath;

TrainOptions FastTraining() {
  TrainOptions o;
  o.epochs = 25;
  o.learning_rate = 3e-3;
  o.programs_per_group = 32;
  o.groups_per_batch = 4;
  o.seed = 3;
  return o;
}

TEST(CostModel, LearnsToRankHeldOutTasks) {
  ProgramSet set = SyntheticSet(40, 40, 1);
  auto split = MakeSplit(set, {SplitKind::kByTask, 0.25, 0, ""});
  ASSERT_TRUE(split.ok()) << split.status().message();
  ProgramSet train = set.Subset(split->train), test = set.Subset(split->test);
  auto model = CostModel::Create(SmallNetwork());
  ASSERT_TRUE(model.ok());
  TrainOptions o = FastTraining();
  if (std::getenv("UCMOH_TEST_VERBOSE"))
    o.on_epoch = [](const EpochReport& e) { std::printf("epoch %d loss %.4f val %.3f\n", e.epoch, e.train_loss, e.val_pca); };
  auto report = Train(*model, train, o);
  ASSERT_TRUE(report.ok()) << report.status().message();
  auto scores = model->Predict(test);
  ASSERT_TRUE(scores.ok());
  const RankingMetrics m = EvaluateRanking(test, *scores);
  std::printf("synthetic held-out tasks: PCA %.3f top-1 %.3f (%d epochs)\n", m.pca, m.top1,
              report->epochs_run);
  EXPECT_GT(m.pca, 0.85);
}

TEST(CostModel, SaveLoadGivesIdenticalScores) {
  ProgramSet set = SyntheticSet(8, 20, 2);
  auto model = CostModel::Create(SmallNetwork());
  TrainOptions o = FastTraining();
  o.epochs = 2;
  ASSERT_TRUE(Train(*model, set, o).ok());
  model->set_learned_intrinsics({"toy.a", "toy.b"});
  const std::string path = TempPath("model_");
  ASSERT_TRUE(model->Save(path).ok());
  auto loaded = CostModel::Load(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  EXPECT_EQ(*model->Predict(set), *loaded->Predict(set));
  EXPECT_EQ(loaded->learned_intrinsics(), (std::vector<std::string>{"toy.a", "toy.b"}));
  EXPECT_EQ(loaded->config().hidden, 32);
  std::filesystem::remove(path);
}

TEST(CostModel, LoadRejectsGarbageWithTheFileName) {
  const std::string path = TempPath("garbage_model_");
  { std::ofstream(path) << "not a model"; }
  auto loaded = CostModel::Load(path);
  ASSERT_FALSE(loaded.ok());
  EXPECT_NE(loaded.status().message().find(path), std::string::npos);
  std::filesystem::remove(path);
}

TEST(CostModel, UntrainedModelRefusesToPredict) {
  auto model = CostModel::Create(SmallNetwork());
  EXPECT_FALSE(model->Predict(SyntheticSet(1, 3, 0)).ok());
}

// Which parameters a transfer mode changed, by the network's own names.
std::vector<std::string> ChangedParameters(const CostModel& before, const CostModel& after) {
  std::vector<std::string> changed;
  auto a = before.Parameters(), b = after.Parameters();
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].values != b[i].values) changed.push_back(a[i].name);
  return changed;
}

// A model trained two epochs on `set` with FastTraining, no validation: the
// start of the transfer tests.
Expected<CostModel> TrainedBase(const ProgramSet& set, TrainOptions* o) {
  *o = FastTraining();
  o->epochs = 2;
  o->val_fraction = 0;
  auto base = CostModel::Create(SmallNetwork());
  if (!base.ok()) return base.status();
  auto report = Train(*base, set, *o);
  if (!report.ok()) return report.status();
  return std::move(*base);
}

TEST(Transfer, ExtractChangesOnlyFcAndDecoderFinetuneChangesAll) {
  TrainOptions o;
  auto base = TrainedBase(SyntheticSet(10, 20, 4), &o);
  ASSERT_TRUE(base.ok()) << base.status().message();

  CostModel extract = base->Clone();
  o.mode = TransferMode::kExtract;
  auto extract_report = Train(extract, SyntheticSet(10, 20, 5), o);
  ASSERT_TRUE(extract_report.ok());
  for (const auto& name : ChangedParameters(*base, extract)) {
    EXPECT_TRUE(name.rfind("fc_blocks.", 0) == 0 || name.rfind("decoder.", 0) == 0) << name;
  }
  EXPECT_FALSE(ChangedParameters(*base, extract).empty());
  EXPECT_LT(extract_report->trained_parameters, base->num_parameters());

  CostModel finetune = base->Clone();
  o.mode = TransferMode::kFinetune;
  auto finetune_report = Train(finetune, SyntheticSet(10, 20, 5), o);
  ASSERT_TRUE(finetune_report.ok());
  bool encoder_changed = false, attention_changed = false;
  for (const auto& name : ChangedParameters(*base, finetune)) {
    encoder_changed |= name.rfind("encoder.", 0) == 0;
    attention_changed |= name.rfind("attention.", 0) == 0;
  }
  EXPECT_TRUE(encoder_changed && attention_changed);
  EXPECT_EQ(finetune_report->trained_parameters, base->num_parameters());
}

TEST(Transfer, FinetuneWithoutATrainedModelIsRefused) {
  auto fresh = CostModel::Create(SmallNetwork());
  TrainOptions o = FastTraining();
  o.mode = TransferMode::kFinetune;
  auto r = Train(*fresh, SyntheticSet(4, 5, 0), o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("trained model"), std::string::npos);
}

TEST(Training, NegativeOrNonFiniteWeightDecayIsRefused) {
  for (double decay : {-1e-4, std::nan("")}) {
    auto model = CostModel::Create(SmallNetwork());
    TrainOptions o = FastTraining();
    o.weight_decay = decay;
    auto r = Train(*model, SyntheticSet(4, 5, 0), o);
    ASSERT_FALSE(r.ok()) << decay;
    EXPECT_NE(r.status().message().find("weight_decay must be finite and >= 0"), std::string::npos)
        << r.status().message();
  }
}

// keep_weights k starts a finetune from k·θ + (1 − k)·θ_init, θ_init one
// fresh network for a given seed: with a learning rate too small to move
// anything, k = 1 keeps θ, and θ_init recovered from k = 0.5 predicts k = 0.75.
// 0 is refused.
TEST(Transfer, KeepWeightsStartsBetweenTheModelAndAFreshOne) {
  const ProgramSet set = SyntheticSet(10, 20, 4);
  TrainOptions o;
  auto base = TrainedBase(set, &o);
  ASSERT_TRUE(base.ok()) << base.status().message();
  o.mode = TransferMode::kFinetune;
  o.epochs = 1;
  o.epoch_average_decay = 0;
  o.learning_rate = 1e-12;
  auto started = [&](double keep) {
    CostModel m = base->Clone();
    o.keep_weights = keep;
    EXPECT_TRUE(Train(m, set, o).ok());
    return m.Parameters();
  };
  const auto theta = base->Parameters(), all = started(1), half = started(0.5), most = started(0.75);
  double largest_shift = 0;
  for (size_t t = 0; t < theta.size(); ++t)
    for (size_t i = 0; i < theta[t].values.size(); ++i) {
      const double init = 2 * half[t].values[i] - theta[t].values[i];
      EXPECT_NEAR(all[t].values[i], theta[t].values[i], 1e-6) << theta[t].name;
      EXPECT_NEAR(most[t].values[i], 0.75 * theta[t].values[i] + 0.25 * init, 1e-5) << theta[t].name;
      largest_shift = std::max(largest_shift, std::abs(double(half[t].values[i] - theta[t].values[i])));
    }
  EXPECT_GT(largest_shift, 1e-2);  // the fresh network differs, so the checks above can fail

  o.keep_weights = 0;
  CostModel m = base->Clone();
  auto refused = Train(m, set, o);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("keep_weights"), std::string::npos);
}

// With no validation set the last epoch is kept: with averaging, the average
// of the epoch-end parameters, decay·θ1 + (1 − decay)·θ2 after two epochs
// (training itself runs on the raw parameters, so θ1 and θ2 are those of
// plain runs of one and two epochs from the same start and seed).
TEST(Training, EpochAverageKeepsTheAveragedParameters) {
  ProgramSet set = SyntheticSet(10, 20, 6);
  TrainOptions o = FastTraining();
  o.val_fraction = 0;
  auto trained = [&](int epochs, double decay) {
    auto model = CostModel::Create(SmallNetwork());
    o.epochs = epochs;
    o.epoch_average_decay = decay;
    EXPECT_TRUE(Train(*model, set, o).ok());
    return model->Parameters();
  };
  const double decay = 0.25;
  auto theta1 = trained(1, 0), theta2 = trained(2, 0), averaged = trained(2, decay);
  ASSERT_EQ(averaged.size(), theta2.size());
  double largest_change = 0;
  for (size_t t = 0; t < averaged.size(); ++t)
    for (size_t i = 0; i < averaged[t].values.size(); ++i) {
      const double expected = decay * theta1[t].values[i] + (1 - decay) * theta2[t].values[i];
      EXPECT_NEAR(averaged[t].values[i], expected, 1e-6) << averaged[t].name << "[" << i << "]";
      largest_change = std::max(largest_change, std::abs(double(theta2[t].values[i] - theta1[t].values[i])));
    }
  EXPECT_GT(largest_change, 1e-3);  // the epochs differ, so the check above can fail
}

// 27 tasks: "small.a" has 7 (10 % rounds to 1 validation task), "large.b"
// has 20 (2 validation tasks).
ProgramSet SmallAndLargeIntrinsic() {
  ProgramSet set = SyntheticSet(27, 6, 7);
  for (size_t t = 0; t < set.tasks.size(); ++t) set.tasks[t].intrinsic = t < 7 ? "small.a" : "large.b";
  return set;
}

// With min_validation_tasks = 2, an intrinsic whose 10 % of tasks rounds to
// one task trains on all of its tasks; one that gives two is validated on them.
TEST(Training, IntrinsicsWithOneValidationTaskAreNotValidated) {
  const ProgramSet set = SmallAndLargeIntrinsic();
  TrainOptions o = FastTraining();
  o.min_validation_tasks = 2;
  auto [fit, validation] = SplitValidation(set, o);
  EXPECT_EQ(validation.Intrinsics(), std::vector<std::string>{"large.b"});
  EXPECT_EQ(validation.tasks.size(), 2u);
  EXPECT_EQ(fit.tasks.size() + validation.tasks.size(), set.tasks.size());
  EXPECT_EQ(fit.OnlyIntrinsics({"small.a"}).tasks.size(), 7u);

  auto [all, none] = SplitValidation(set.OnlyIntrinsics({"small.a"}), o);
  EXPECT_EQ(none.size(), 0u);
  EXPECT_EQ(all.tasks.size(), 7u);
}

// min_validation_tasks is the bar: at 3 (and at the default, 4) the intrinsic
// that gives two validation tasks trains on all of its tasks too; at 1 both
// are validated; 0 is rejected.
TEST(Training, MinValidationTasksIsTheBarForValidating) {
  const ProgramSet set = SmallAndLargeIntrinsic();
  TrainOptions o = FastTraining();
  o.min_validation_tasks = 3;
  auto [fit, validation] = SplitValidation(set, o);
  EXPECT_EQ(validation.size(), 0u);
  EXPECT_EQ(fit.tasks.size(), set.tasks.size());
  EXPECT_EQ(SplitValidation(set, FastTraining()).second.size(), 0u);
  o.min_validation_tasks = 1;
  auto validated = SplitValidation(set, o).second.Intrinsics();
  std::sort(validated.begin(), validated.end());
  EXPECT_EQ(validated, (std::vector<std::string>{"large.b", "small.a"}));

  o.min_validation_tasks = 0;
  auto model = CostModel::Create(SmallNetwork());
  ASSERT_TRUE(model.ok());
  auto report = Train(*model, set, o);
  ASSERT_FALSE(report.ok());
  EXPECT_NE(report.status().message().find("min_validation_tasks"), std::string::npos);
}

}  // namespace
}  // namespace ucmoh
