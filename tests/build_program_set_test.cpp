// BuildProgramSet featurizes records on several threads and assembles them in
// order: the set, its tasks, its keys and its failures are those of featurizing
// each record alone, one after another.
#include <gtest/gtest.h>

#include "shared_data.h"
#include "ucmoh/plugin_loader.h"
#include "ucmoh/program_featurizer.h"
#include "ucmoh/program_set.h"

namespace ucmoh {
namespace {

TEST(BuildProgramSet, ThreadedFeaturizationKeepsRecordOrderTasksAndFailures) {
  UCMOH_SKIP_WITHOUT_SHARED_DATA();
  auto plugins = LoadPlugins(UCMOH_SOURCE_DIR "/plugins.json");
  ASSERT_TRUE(plugins.ok()) << plugins.status().message();
  const LoadedPlugin* tensorcore = plugins->ForTarget("tensorcore");
  ASSERT_NE(tensorcore, nullptr);
  auto rows = tensorcore->plugin->Import("cutlass", testing::CutlassDataDir() + "/resnet50_cutlass_profiler_result.csv");
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  // 3,000 records (enough for several threads), with failures in three slices.
  std::vector<Record> records;
  while (records.size() < 3000) records.push_back((*rows)[records.size() % rows->size()]);
  records[5].latency.median_s = -1;
  records[1700].latency.median_s = 0;
  records[2900].intrinsic = "tensorcore.no_such_intrinsic";

  std::vector<FeaturizeFailure> failures;
  auto set = BuildProgramSet(*plugins, records, &failures);
  ASSERT_TRUE(set.ok()) << set.status().message();
  ASSERT_EQ(failures.size(), 3u);
  EXPECT_EQ(failures[0].index, 5);
  EXPECT_EQ(failures[1].index, 1700);
  EXPECT_EQ(failures[2].index, 2900);
  EXPECT_NE(failures[2].message.find("no_such_intrinsic"), std::string::npos) << failures[2].message;
  ASSERT_EQ(set->size(), records.size() - 3);

  std::vector<std::string> first_seen_tasks;
  size_t program = 0;
  for (size_t i = 0; i < records.size(); ++i) {
    if (i == 5 || i == 1700 || i == 2900) continue;
    auto alone = FeaturizeRecord(*plugins, records[i]);
    ASSERT_TRUE(alone.ok()) << "record " << i << ": " << alone.status().message();
    ASSERT_EQ(set->tokens[program].values, alone->values) << "record " << i;
    ASSERT_EQ(set->program_key[program], ProgramKey(records[i])) << "record " << i;
    ASSERT_EQ(set->latency_s[program], records[i].latency.median_s);
    const std::string& task = set->tasks[set->task[program]].key;
    ASSERT_EQ(task, records[i].task.key);
    if (std::find(first_seen_tasks.begin(), first_seen_tasks.end(), task) == first_seen_tasks.end())
      first_seen_tasks.push_back(task);
    ++program;
  }
  ASSERT_EQ(first_seen_tasks.size(), set->tasks.size());
  for (size_t t = 0; t < first_seen_tasks.size(); ++t) EXPECT_EQ(set->tasks[t].key, first_seen_tasks[t]);
}

}  // namespace
}  // namespace ucmoh
