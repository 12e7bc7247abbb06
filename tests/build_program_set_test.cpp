// BuildProgramSet featurizes records on several threads and assembles them in
// order: the set, its tasks, its keys and its failures are those of featurizing
// each record alone, one after another.
#include <gtest/gtest.h>

#include <set>

#include "shared_data.h"
#include "ucmoh/metrics.h"
#include "ucmoh/plugin_loader.h"
#include "ucmoh/program_featurizer.h"
#include "ucmoh/program_set.h"
#include "ucmoh/splits.h"
#include "ucmoh/task_split.h"

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

// Two machines' records of the same tasks (here the same programs, the second
// machine 3x slower on the even ones): each machine's latencies are ranked
// only against its own, and a task split holds a task out on both machines.
TEST(BuildProgramSet, TwoMachinesRecordsOfOneTaskAreTwoRankingGroupsSplitTogether) {
  UCMOH_SKIP_WITHOUT_SHARED_DATA();
  auto plugins = LoadPlugins(UCMOH_SOURCE_DIR "/plugins.json");
  ASSERT_TRUE(plugins.ok()) << plugins.status().message();
  auto rows = plugins->ForTarget("tensorcore")->plugin->Import(
      "cutlass", testing::CutlassDataDir() + "/resnet50_cutlass_profiler_result.csv");
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  std::vector<Record> records(rows->begin(), rows->begin() + std::min<size_t>(rows->size(), 400));
  const size_t first_host = records.size();
  for (size_t i = 0; i < first_host; ++i) {
    Record other = records[i];
    other.hardware.model += " (second card)";
    if (i % 2 == 0) other.latency.median_s *= 3;
    records.push_back(other);
  }
  auto set = BuildProgramSet(*plugins, records);
  ASSERT_TRUE(set.ok()) << set.status().message();
  auto one_host = BuildProgramSet(*plugins, std::vector<Record>(records.begin(), records.begin() + first_host));
  ASSERT_TRUE(one_host.ok());
  ASSERT_GE(one_host->tasks.size(), 3u) << "the test needs several tasks";
  ASSERT_EQ(set->tasks.size(), 2 * one_host->tasks.size());
  EXPECT_EQ(TaskKeys(*set), TaskKeys(*one_host));  // the same tasks, each timed twice

  // Labels are per machine: the first host's are those of its records alone.
  const std::vector<float> labels = set->Labels(), alone = one_host->Labels();
  for (size_t p = 0; p < first_host; ++p) ASSERT_EQ(labels[p], alone[p]) << "program " << p;
  for (const TaskGroup& group : set->tasks) {
    float best = 0;
    for (int32_t p : group.programs) best = std::max(best, labels[p]);
    EXPECT_EQ(best, 1.f) << group.key << " on " << group.hardware;
  }
  // Scoring every program by its own latency ranks every group perfectly; had
  // the hosts shared a group, the slowed copies would be out of order.
  std::vector<float> oracle;
  for (double latency : set->latency_s) oracle.push_back(static_cast<float>(-latency));
  const RankingMetrics m = EvaluateRanking(*set, oracle);
  EXPECT_EQ(m.tasks, static_cast<int64_t>(set->tasks.size()));
  EXPECT_EQ(m.pca, 1.0);

  // Subset and Append keep the groups apart.
  std::vector<int32_t> every(set->size());
  for (size_t p = 0; p < every.size(); ++p) every[p] = static_cast<int32_t>(p);
  ProgramSet rebuilt = set->Subset(every);
  EXPECT_EQ(rebuilt.tasks.size(), set->tasks.size());
  rebuilt.Append(*set);
  EXPECT_EQ(rebuilt.tasks.size(), set->tasks.size());
  EXPECT_EQ(rebuilt.size(), 2 * set->size());

  // A held-out task is held out on both machines.
  SplitOptions options;
  options.kind = SplitKind::kByTask;
  options.test_fraction = 0.3;
  auto split = MakeSplit(*set, options);
  ASSERT_TRUE(split.ok()) << split.status().message();
  std::set<std::string> train_tasks, test_tasks;
  for (int32_t p : split->train) train_tasks.insert(set->tasks[set->task[p]].key);
  for (int32_t p : split->test) test_tasks.insert(set->tasks[set->task[p]].key);
  ASSERT_FALSE(test_tasks.empty());
  for (const auto& key : test_tasks) EXPECT_EQ(train_tasks.count(key), 0u) << key << " is on both sides";
  EXPECT_EQ(split->train.size() + split->test.size(), set->size());
  EXPECT_EQ(split->test.size() % 2, 0u);  // every held-out program with its copy
}

}  // namespace
}  // namespace ucmoh
