// Pinned held-out tasks (docs/registry.md): an intrinsic's held-out tasks are
// fixed when it is first learned; later steps can neither move them with other
// options nor by adding records; tasks that arrive later are assigned by hash;
// verify catches a version that trained on a held-out task. Real plugins, real
// CUTLASS rows, real (one-epoch) training.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "ci_skip.h"
#include "real_registry_fixture.h"
#include "ucmoh/plugin_loader.h"
#include "ucmoh/registry/registry_ops.h"
#include "ucmoh/task_split.h"

namespace ucmoh::registry {
namespace {

namespace fs = std::filesystem;

std::string Int8Csv() {
  const char* env = std::getenv("UCMOH_DATA_DIR");
  return (env && *env ? std::string(env) : std::string(UCMOH_SOURCE_DIR) + "/../shared/data") +
         "/cutlass/resnet50_cutlass_profiler_result_int8.csv";
}

// The header and rows [first, last) of the int8 CSV.
std::string CsvRows(const testing::TempDir& dir, const std::string& name, int first, int last) {
  std::ifstream in(Int8Csv());
  std::ofstream out(dir.Sub(name));
  std::string line;
  for (int i = 0; std::getline(in, line); ++i)
    if (i == 0 || (i > first && i <= last)) out << line << "\n";
  return dir.Sub(name);
}

bool Has(const std::vector<std::string>& sorted, const std::string& key) {
  return std::binary_search(sorted.begin(), sorted.end(), key);
}

class HeldOut : public testing::RealRegistryTest {
 protected:
  HeldOut() : RealRegistryTest("held_out") {}

  void SetUp() override {
    if (!fs::exists(Int8Csv())) UCMOH_SKIP_OR_FAIL_IN_CI("public CUTLASS data not found: " + Int8Csv());
    OpenRegistryWithPlugins();
  }

  void Import(int first, int last) {
    auto added = ImportRecordsFiles(*store_, *plugins_, "cutlass",
                                    {CsvRows(dir_, "rows" + std::to_string(first) + ".csv", first, last)});
    ASSERT_TRUE(added.ok()) << added.status().message();
  }

  ModelVersion Add(const std::string& intrinsic, double fraction, uint64_t split_seed) {
    AddIntrinsicOptions o;
    o.step.training.epochs = 1;
    o.test_fraction = fraction;
    o.split_seed = split_seed;
    auto result = AddIntrinsic(*store_, *plugins_, intrinsic, o);
    EXPECT_TRUE(result.ok()) << result.status().message();
    return result.ok() ? result->version : ModelVersion{};
  }
};

TEST_F(HeldOut, PinnedWhenFirstLearnedAndNeverMoved) {
  Import(0, 120);  // the first rows: some i8816 tasks only
  const ModelVersion v1 = Add("tensorcore.i8816", 0.2, 0);
  ASSERT_EQ(v1.task_splits.count("tensorcore.i8816"), 1u);
  const TaskSplit pinned = v1.task_splits.at("tensorcore.i8816");
  auto expected = PinTaskSplit(v1.trained_tasks.at("tensorcore.i8816"), 0.2, 0);
  ASSERT_FALSE(pinned.held_out_tasks.empty());
  for (const auto& task : v1.trained_tasks.at("tensorcore.i8816")) EXPECT_FALSE(Has(pinned.held_out_tasks, task));

  Import(120, 366);  // the rest: more i8816 tasks, and i16832
  // Other options on the next step cannot move i8816's pinned tasks.
  const ModelVersion v2 = Add("tensorcore.i16832", 0.5, 9);
  const TaskSplit grown = v2.task_splits.at("tensorcore.i8816");
  EXPECT_EQ(grown.seed, 0u);
  EXPECT_DOUBLE_EQ(grown.test_fraction, 0.2);
  for (const auto& task : pinned.held_out_tasks) EXPECT_TRUE(Has(grown.held_out_tasks, task)) << task;
  for (const auto& task : pinned.train_tasks) EXPECT_TRUE(Has(grown.train_tasks, task)) << task;
  const size_t late = grown.train_tasks.size() + grown.held_out_tasks.size() - pinned.train_tasks.size() -
                      pinned.held_out_tasks.size();
  EXPECT_GT(late, 0u) << "the second import brought new i8816 tasks";
  for (const auto& task : grown.held_out_tasks)
    if (!Has(pinned.held_out_tasks, task)) {
      EXPECT_LT(TaskHashUnit(0, task), 0.2) << task;
    }
  // i16832 is pinned with this step's own options.
  EXPECT_EQ(v2.task_splits.at("tensorcore.i16832").seed, 9u);
  EXPECT_EQ(std::get<double>(v2.hyper_parameters.at("test_fraction")), 0.5);
  auto problems = store_->Verify();
  ASSERT_TRUE(problems.ok());
  EXPECT_TRUE(problems->empty()) << problems->front();
}

TEST_F(HeldOut, VerifyCatchesTrainingOnAHeldOutTask) {
  Import(0, 366);
  const ModelVersion v1 = Add("tensorcore.i8816", 0.2, 0);
  ASSERT_GT(v1.number, 0);
  VersionCommit forged;
  forged.version = v1;
  forged.version.number = 0;
  forged.version.parent = v1.number;
  const std::string held = v1.task_splits.at("tensorcore.i8816").held_out_tasks.front();
  forged.version.trained_tasks["tensorcore.i8816"] = {held};
  forged.weights = "not really weights";
  ASSERT_TRUE(store_->CommitVersion(forged).ok());
  auto problems = store_->Verify();
  ASSERT_TRUE(problems.ok());
  ASSERT_EQ(problems->size(), 1u);
  EXPECT_NE(problems->front().find("trained on task '" + held + "'"), std::string::npos) << problems->front();
}

}  // namespace
}  // namespace ucmoh::registry
