// The one lifelong step (lifelong_step.h) through its two entry points: the
// same seed and options give bit-identical weights whether the sequence runs
// in `registry lifelong` (RunLifelong over a records file, in any record
// order) or as add-intrinsic versions of a real RocksDB registry; and the
// rehearsal sample is deterministic, bounded and stored with the version.
// Real plugins, real CUTLASS rows, real (short) training.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "real_registry_fixture.h"
#include "shared_data.h"
#include "ucmoh/lifelong.h"
#include "ucmoh/plugin_loader.h"
#include "ucmoh/registry/registry_ops.h"
#include "ucmoh/rehearsal.h"

namespace ucmoh::registry {
namespace {

const std::vector<std::string> kSequence = {"tensorcore.i8816", "tensorcore.i16832"};

LifelongStepOptions SmallStep() {
  LifelongStepOptions o;  // the default method and λ
  o.network.hidden = 16;
  o.network.heads = 4;
  o.training.epochs = 2;
  o.training.seed = 3;
  o.rehearsal_programs = 24;
  o.rehearsal_seed = 7;
  return o;
}

class LifelongStepEntryPoints : public testing::RealRegistryTest {
 protected:
  LifelongStepEntryPoints() : RealRegistryTest("lifelong_step") {}

  void SetUp() override { OpenRegistryWithCutlassInt8(); }

  // Both intrinsics' records, shuffled: the runner must not care about order.
  ProgramSet ShuffledRecords() {
    std::vector<Record> all;
    for (const auto& name : kSequence) {
      auto records = store_->ReadRecords(name);
      EXPECT_TRUE(records.ok());
      all.insert(all.end(), records->begin(), records->end());
    }
    std::shuffle(all.begin(), all.end(), std::mt19937_64(11));
    auto set = BuildProgramSet(*plugins_, all);
    EXPECT_TRUE(set.ok());
    return std::move(*set);
  }
};

TEST_F(LifelongStepEntryPoints, SameSeedGivesTheSameWeightsThroughBothEntryPoints) {
  AddIntrinsicOptions add;
  add.step = SmallStep();
  std::vector<ModelVersion> versions;
  for (const auto& name : kSequence) {
    auto r = AddIntrinsic(*store_, *plugins_, name, add);
    ASSERT_TRUE(r.ok()) << r.status().message();
    versions.push_back(r->version);
  }
  LifelongOptions run;
  run.sequence = kSequence;
  run.step = SmallStep();
  run.plasticity_reference = false;
  auto result = RunLifelong(ShuffledRecords(), run);
  ASSERT_TRUE(result.ok()) << result.status().message();

  auto stored = LoadVersionModel(*store_, versions.back().number);
  ASSERT_TRUE(stored.ok()) << stored.status().message();
  const auto a = stored->Parameters(), b = result->final_model.Parameters();
  ASSERT_EQ(a.size(), b.size());
  ASSERT_FALSE(a.empty());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].name, b[i].name);
    EXPECT_EQ(a[i].values, b[i].values) << a[i].name << " differs between add-intrinsic and lifelong";
  }
  // The same held-out tasks, so the same evaluation row.
  const auto& rows = versions.back().evaluation.rows;
  ASSERT_EQ(rows.size(), 2u);
  for (size_t j = 0; j < 2; ++j) {
    EXPECT_EQ(rows[j].intrinsic, kSequence[j]);
    EXPECT_DOUBLE_EQ(rows[j].pca, result->pca[1][j]);
  }
  const LifelongStepOptions defaults;
  EXPECT_EQ(std::get<std::string>(versions.back().hyper_parameters.at("method")), LifelongMethodName(defaults.method));
}

TEST_F(LifelongStepEntryPoints, RehearsalSampleIsBoundedStoredAndReplayed) {
  AddIntrinsicOptions add;
  add.step = SmallStep();
  add.step.method = LifelongMethod::kReplay;
  auto v1 = AddIntrinsic(*store_, *plugins_, kSequence[0], add);
  ASSERT_TRUE(v1.ok()) << v1.status().message();
  const RehearsalKeys first = v1->version.rehearsal.at(kSequence[0]);
  EXPECT_EQ(first.replay.size(), 24u);
  EXPECT_LE(first.validation.size(), 24u);
  EXPECT_TRUE(std::is_sorted(first.replay.begin(), first.replay.end()));
  // Only training programs are replayed: none of the held-out tasks.
  const auto& held_out = v1->version.task_splits.at(kSequence[0]).held_out_tasks;
  auto records = store_->ReadRecords(kSequence[0]);
  ASSERT_TRUE(records.ok());
  size_t replayed_records = 0;
  for (const auto& r : *records) {
    if (std::binary_search(first.replay.begin(), first.replay.end(), ProgramKey(r))) {
      ++replayed_records;
      EXPECT_FALSE(std::binary_search(held_out.begin(), held_out.end(), r.task.key)) << r.task.key;
    }
  }
  EXPECT_EQ(replayed_records, first.replay.size()) << "every replayed key names a record of the registry";

  auto v2 = AddIntrinsic(*store_, *plugins_, kSequence[1], add);
  ASSERT_TRUE(v2.ok()) << v2.status().message();
  EXPECT_EQ(v2->version.rehearsal.at(kSequence[0]).replay, first.replay) << "a learned sample never changes";
  EXPECT_EQ(v2->version.rehearsal.count(kSequence[1]), 1u);
  EXPECT_EQ(v2->step.replayed_programs, 24) << "the stored sample was rebuilt and replayed";

  // The same sample is drawn again from the same programs in another order.
  LifelongOptions run;
  run.sequence = {kSequence[0]};
  run.step = add.step;
  run.plasticity_reference = false;
  ProgramSet shuffled = ShuffledRecords().OnlyIntrinsics({kSequence[0]});
  auto split = ApplyTaskSplit(shuffled, v1->version.task_splits.at(kSequence[0]));
  ASSERT_TRUE(split.ok());
  auto [fit, validation] = SplitValidation(CanonicalOrder(split->train), add.step.training);
  const RehearsalSample again = DrawRehearsal(kSequence[0], fit, validation, 24, 7);
  EXPECT_EQ(again.replay_keys, first.replay);
  EXPECT_EQ(again.validation_keys, first.validation);
  const RehearsalSample other_seed = DrawRehearsal(kSequence[0], fit, validation, 24, 8);
  EXPECT_NE(other_seed.replay_keys, first.replay);
}

}  // namespace
}  // namespace ucmoh::registry
