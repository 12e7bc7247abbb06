// Train / test splits: disjoint, complete, reproducible, and shaped as each
// kind promises.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "ucmoh/splits.h"
#include "ucmoh/task_split.h"

namespace ucmoh {
namespace {

// Two targets; x86.vnni has 6 tasks, x86.avx512 3, arm.sdot 2, arm.neon 1.
// Task sizes vary from 1 to 12 programs.
ProgramSet MakeSet() {
  ProgramSet set;
  const std::vector<std::pair<std::string, int>> intrinsics = {
      {"x86.vnni", 6}, {"x86.avx512", 3}, {"arm.sdot", 2}, {"arm.neon", 1}};
  int task_number = 0;
  for (const auto& [intrinsic, tasks] : intrinsics) {
    for (int t = 0; t < tasks; ++t, ++task_number) {
      TaskGroup group{"task" + std::to_string(task_number), intrinsic,
                      intrinsic.substr(0, intrinsic.find('.')), {}, ""};
      const int programs = 1 + (task_number * 5) % 12;
      for (int p = 0; p < programs; ++p) {
        group.programs.push_back(static_cast<int32_t>(set.size()));
        TokenMatrix tokens;
        tokens.num_tokens = 1;
        tokens.values.assign(kFeatureDim, 0.f);
        set.tokens.push_back(tokens);
        set.latency_s.push_back(1.0 + p);
        set.task.push_back(static_cast<int32_t>(set.tasks.size()));
      }
      set.tasks.push_back(group);
    }
  }
  return set;
}

void ExpectPartition(const ProgramSet& set, const Split& split) {
  std::vector<int32_t> all = split.train;
  all.insert(all.end(), split.test.begin(), split.test.end());
  std::sort(all.begin(), all.end());
  ASSERT_EQ(all.size(), set.size()) << "every program exactly once";
  for (size_t i = 0; i < all.size(); ++i) EXPECT_EQ(all[i], static_cast<int32_t>(i));
}

Split MustSplit(const ProgramSet& set, SplitKind kind, uint64_t seed, double fraction = 0.3) {
  SplitOptions options;
  options.kind = kind;
  options.seed = seed;
  options.test_fraction = fraction;
  auto split = MakeSplit(set, options);
  EXPECT_TRUE(split.ok()) << split.status().message();
  return split.ok() ? *split : Split{};
}

TEST(Splits, ParseAndName) {
  for (const char* name : {"within_task", "by_task", "by_target"}) {
    auto kind = ParseSplitKind(name);
    ASSERT_TRUE(kind.ok());
    EXPECT_STREQ(SplitKindName(*kind), name);
  }
  auto bad = ParseSplitKind("by_moon");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("by_moon"), std::string::npos);
}

TEST(Splits, WithinTaskHoldsOutProgramsOfEveryTask) {
  const ProgramSet set = MakeSet();
  const Split split = MustSplit(set, SplitKind::kWithinTask, 1);
  ExpectPartition(set, split);
  const std::set<int32_t> test(split.test.begin(), split.test.end());
  for (const auto& group : set.tasks) {
    size_t held = 0;
    for (int32_t p : group.programs) held += test.count(p);
    if (group.programs.size() < 2) {
      EXPECT_EQ(held, 0u) << group.key << " has one program: it stays in train";
    } else {
      EXPECT_GE(held, 1u) << group.key;
      EXPECT_LT(held, group.programs.size()) << group.key;
    }
  }
}

TEST(Splits, ByTaskKeepsTasksWholeAndIntrinsicsOnBothSides) {
  const ProgramSet set = MakeSet();
  const Split split = MustSplit(set, SplitKind::kByTask, 2);
  ExpectPartition(set, split);
  const std::set<int32_t> test(split.test.begin(), split.test.end());
  std::map<std::string, std::pair<int, int>> train_test_tasks;  // per intrinsic
  for (const auto& group : set.tasks) {
    size_t held = 0;
    for (int32_t p : group.programs) held += test.count(p);
    EXPECT_TRUE(held == 0 || held == group.programs.size()) << group.key << " was cut in two";
    auto& counts = train_test_tasks[group.intrinsic];
    (held ? counts.second : counts.first) += 1;
  }
  for (const auto& [intrinsic, counts] : train_test_tasks) {
    EXPECT_GE(counts.first, 1) << intrinsic << " has no training task";
    if (intrinsic != "arm.neon") {
      EXPECT_GE(counts.second, 1) << intrinsic << " has no test task";
    }
  }
  EXPECT_EQ(train_test_tasks["arm.neon"].second, 0) << "a lone task stays in train";
  EXPECT_EQ(train_test_tasks["x86.vnni"].second, 2) << "round(0.3 * 6) tasks held out";
}

TEST(Splits, ReproduciblePerSeedAndDifferentAcrossSeeds) {
  const ProgramSet set = MakeSet();
  for (SplitKind kind : {SplitKind::kWithinTask, SplitKind::kByTask}) {
    const Split a = MustSplit(set, kind, 42);
    const Split b = MustSplit(set, kind, 42);
    EXPECT_EQ(a.train, b.train);
    EXPECT_EQ(a.test, b.test);
    bool any_different = false;
    for (uint64_t seed = 43; seed < 48 && !any_different; ++seed)
      any_different = MustSplit(set, kind, seed).test != a.test;
    EXPECT_TRUE(any_different) << SplitKindName(kind) << " ignores its seed";
  }
}

std::vector<std::string> Keys(int n, const std::string& prefix = "task") {
  std::vector<std::string> keys;
  for (int i = 0; i < n; ++i) keys.push_back(prefix + std::to_string(i));
  return keys;
}

TEST(TaskSplit, DependsOnKeysSeedAndFractionOnlyNotOnOrder) {
  std::vector<std::string> keys = Keys(41);
  auto a = PinTaskSplit(keys, 0.2, 7);
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_EQ(a->held_out_tasks.size(), 8u);  // round(0.2 * 41)
  EXPECT_EQ(a->train_tasks.size(), 33u);
  std::reverse(keys.begin(), keys.end());
  keys.push_back(keys.front());  // a duplicate changes nothing either
  auto b = PinTaskSplit(keys, 0.2, 7);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(a->held_out_tasks, b->held_out_tasks);
  EXPECT_EQ(a->train_tasks, b->train_tasks);
  EXPECT_NE(PinTaskSplit(keys, 0.2, 8)->held_out_tasks, a->held_out_tasks);
}

TEST(TaskSplit, LaterTasksAreAssignedByHashAndNothingMoves) {
  auto pinned = PinTaskSplit(Keys(41), 0.2, 3);
  ASSERT_TRUE(pinned.ok());
  std::vector<std::string> more = Keys(41);
  for (const auto& key : Keys(400, "late")) more.push_back(key);
  const TaskSplit grown = ExtendTaskSplit(*pinned, more);
  EXPECT_EQ(grown.train_tasks.size() + grown.held_out_tasks.size(), 441u);
  for (const auto& key : pinned->held_out_tasks)
    EXPECT_TRUE(std::binary_search(grown.held_out_tasks.begin(), grown.held_out_tasks.end(), key)) << key;
  for (const auto& key : pinned->train_tasks)
    EXPECT_TRUE(std::binary_search(grown.train_tasks.begin(), grown.train_tasks.end(), key)) << key;
  int late_held = 0;
  for (const auto& key : grown.held_out_tasks) {
    late_held += key.rfind("late", 0) == 0;
    if (key.rfind("late", 0) == 0) {
      EXPECT_LT(TaskHashUnit(3, key), 0.2) << key;
    }
  }
  EXPECT_GT(late_held, 50);   // about 0.2 * 400 = 80
  EXPECT_LT(late_held, 115);
  const TaskSplit again = ExtendTaskSplit(grown, more);  // extending twice is extending once
  EXPECT_EQ(again.held_out_tasks, grown.held_out_tasks);
  EXPECT_EQ(again.train_tasks, grown.train_tasks);
}

TEST(TaskSplit, ApplyKeepsTasksWholeAndRefusesUnassignedTasks) {
  const ProgramSet set = MakeSet().OnlyIntrinsics({"x86.vnni"});
  auto pinned = PinTaskSplit(TaskKeys(set), 0.3, 1);
  ASSERT_TRUE(pinned.ok());
  auto halves = ApplyTaskSplit(set, *pinned);
  ASSERT_TRUE(halves.ok()) << halves.status().message();
  EXPECT_EQ(halves->train.size() + halves->held_out.size(), set.size());
  EXPECT_EQ(TaskKeys(halves->held_out), pinned->held_out_tasks);
  TaskSplit partial = *pinned;
  partial.train_tasks.pop_back();
  EXPECT_FALSE(ApplyTaskSplit(set, partial).ok());
  EXPECT_FALSE(PinTaskSplit({"one", "one"}, 0.2, 1).ok());  // one distinct task
  EXPECT_FALSE(PinTaskSplit(Keys(5), 1.0, 1).ok());
}

TEST(Splits, ByTargetHoldsOutOneTarget) {
  const ProgramSet set = MakeSet();
  SplitOptions options;
  options.kind = SplitKind::kByTarget;
  options.held_out_target = "arm";
  auto split = MakeSplit(set, options);
  ASSERT_TRUE(split.ok()) << split.status().message();
  ExpectPartition(set, *split);
  ASSERT_FALSE(split->test.empty());
  ASSERT_FALSE(split->train.empty());
  for (int32_t p : split->test) EXPECT_EQ(set.tasks[set.task[p]].target, "arm");
  for (int32_t p : split->train) EXPECT_EQ(set.tasks[set.task[p]].target, "x86");
}

TEST(Splits, ByTargetErrorsNameTheProblem) {
  const ProgramSet set = MakeSet();
  SplitOptions options;
  options.kind = SplitKind::kByTarget;
  options.held_out_target = "tensorcore";
  auto absent = MakeSplit(set, options);
  ASSERT_FALSE(absent.ok());
  EXPECT_NE(absent.status().message().find("tensorcore"), std::string::npos) << absent.status().message();

  options.held_out_target = "x86";
  auto only = MakeSplit(set.OnlyIntrinsics({"x86.vnni", "x86.avx512"}), options);
  ASSERT_FALSE(only.ok());
  EXPECT_NE(only.status().message().find("x86"), std::string::npos);
  EXPECT_NE(only.status().message().find("nothing to train"), std::string::npos) << only.status().message();

  options.held_out_target = "";
  EXPECT_FALSE(MakeSplit(set, options).ok());
}

TEST(Splits, BadFractionAndEmptySetAreErrors) {
  const ProgramSet set = MakeSet();
  SplitOptions options;
  options.test_fraction = 1.5;
  auto bad = MakeSplit(set, options);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("fraction"), std::string::npos);
  EXPECT_FALSE(MakeSplit(ProgramSet{}, SplitOptions{}).ok());
  // by_task needs an intrinsic with two tasks.
  EXPECT_FALSE(MakeSplit(set.OnlyIntrinsics({"arm.neon"}), SplitOptions{}).ok());
}

}  // namespace
}  // namespace ucmoh
