// The C plugin ABI's version rules: a plugin built against an older minor
// (cdot: plain C, the frozen ABI 5.0 header) loads into this host, which uses
// only what that minor provides and says so for the rest.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "plugin_test_util.h"
#include "ucmoh/plugin_loader.h"
#include "ucmoh/features.h"
#include "ucmoh/program_featurizer.h"
#include "ucmoh/program_ast.h"
#include "ucmoh/program_set.h"

namespace {

using plugin_test::ManifestJson;
using plugin_test::TempDir;
using plugin_test::TestPlugin;
using testing::HasSubstr;

TEST(AbiVersions, APluginOfAnOlderMinorLoadsLowersAndFeaturizes) {
  TempDir dir;
  auto set = ucmoh::LoadPlugins(dir.Write("plugins.json", ManifestJson({{"cdot", TestPlugin("cdot")}})));
  ASSERT_TRUE(set.ok()) << set.status().message();
  const ucmoh::LoadedPlugin& cdot = set->plugins().at(0);
  EXPECT_EQ(cdot.abi, UCMOH_PLUGIN_C_MAJOR);
  EXPECT_EQ(cdot.abi_minor, 0);
  EXPECT_GT(UCMOH_PLUGIN_C_MINOR, cdot.abi_minor) << "the host must be newer than the frozen plugin";
  EXPECT_EQ(cdot.target.hardware.model, "CDot C-1");

  auto tasks = cdot.plugin->Tasks("tiny", "cdot.dot4");
  ASSERT_TRUE(tasks.ok()) << tasks.status().message();
  ASSERT_EQ(tasks->size(), 1u);
  auto schedules = cdot.plugin->SampleSchedules(tasks->front(), "cdot.dot4", 4, 0);
  ASSERT_TRUE(schedules.ok()) << schedules.status().message();
  ASSERT_EQ(schedules->size(), 4u);

  std::vector<ucmoh::Record> programs;
  for (const auto& schedule : *schedules) {
    ucmoh::Record r;
    r.target = "cdot";
    r.intrinsic = "cdot.dot4";
    r.task = tasks->front();
    r.schedule = schedule;
    r.hardware = cdot.target.hardware;
    r.latency.median_s = 1e-6;
    programs.push_back(r);
  }
  // Featurizing straight from the plugin's C view of the AST gives the tokens
  // of the host's own AST.
  for (const auto& r : programs) {
    auto fast = ucmoh::FeaturizeRecord(*set, r);
    auto ast = ucmoh::LowerRecord(*set, r);
    ASSERT_TRUE(fast.ok() && ast.ok());
    auto slow = ucmoh::Featurize(*ast, r.hardware, *set->Intrinsic(r.intrinsic));
    ASSERT_TRUE(slow.ok());
    EXPECT_EQ(fast->values, slow->values);
  }
  auto tokens = ucmoh::BuildProgramSet(*set, programs);
  ASSERT_TRUE(tokens.ok()) << tokens.status().message();
  EXPECT_EQ(tokens->size(), 4u);
  EXPECT_EQ(tokens->tokens[0].num_tokens, 5);  // the target and intrinsic tokens, then the three stages
}

TEST(AbiVersions, WhatAnOlderMinorLacksIsReportedNotCalled) {
  TempDir dir;
  auto set = ucmoh::LoadPlugins(dir.Write("plugins.json", ManifestJson({{"cdot", TestPlugin("cdot")}})));
  ASSERT_TRUE(set.ok()) << set.status().message();
  const auto& plugin = *set->plugins().at(0).plugin;
  EXPECT_TRUE(plugin.TemplateInputNames().empty());
  auto values = plugin.StageTemplate("cdot.dot4", {}, ucmoh::Stage{}, ucmoh::HardwareParams{});
  ASSERT_FALSE(values.ok());
  EXPECT_THAT(values.status().message(), HasSubstr("does not take programs of cdot.dot4 as ASTs"));
  EXPECT_FALSE(plugin.CanMeasure("cdot.dot4").ok());
  auto imported = plugin.Import("csv", "/dev/null");
  ASSERT_FALSE(imported.ok());
  EXPECT_THAT(imported.status().message(), HasSubstr("has no importer 'csv'"));
  auto lowered = plugin.Lower(ucmoh::Task{}, "cdot.dot4", {{"tile", int64_t{3}}}, ucmoh::HardwareParams{});
  ASSERT_FALSE(lowered.ok());
  EXPECT_THAT(lowered.status().message(), HasSubstr("tile must divide m"));
}

}  // namespace

namespace {

// 5.1's task and hardware ids let the plugin reuse what it built from the
// last task it saw: a task with the same key but another workload, and the
// same task back again, must each be lowered as themselves.
TEST(AbiVersions, TaskIdsFollowEveryChangeOfTheTask) {
  TempDir dir;
  auto set = ucmoh::LoadPlugins(
      dir.Write("plugins.json", ManifestJson({{"toyaccel", plugin_test::TestPlugin("toyaccel")}})));
  ASSERT_TRUE(set.ok()) << set.status().message();
  const auto& plugin = set->plugins().at(0).plugin;
  const auto hardware = plugin->Target().hardware;
  const std::string mac = "toyaccel.mac16x16";
  ucmoh::Task small{"t", "gemm", {{"m", int64_t{64}}, {"n", int64_t{64}}, {"k", int64_t{64}}}};
  ucmoh::Task large = small;  // same key, another workload
  large.workload["m"] = int64_t{256};
  auto schedules = plugin->SampleSchedules(small, mac, 1, 3);
  ASSERT_TRUE(schedules.ok()) << schedules.status().message();
  auto lower = [&](const ucmoh::Task& task) {
    auto ast = plugin->Lower(task, mac, schedules->front(), hardware);
    EXPECT_TRUE(ast.ok()) << ast.status().message();
    return ast.ok() ? ucmoh::DumpAst(*ast) : std::string();
  };
  const std::string first = lower(small);
  const std::string other = lower(large);
  EXPECT_NE(first, other) << "the plugin kept the earlier task";
  EXPECT_EQ(lower(small), first);
  EXPECT_EQ(lower(large), other);
}

}  // namespace

namespace {

ucmoh::Record BadAstRecord(const std::string& fault) {
  ucmoh::Record r;
  r.target = "badast";
  r.intrinsic = "badast.dot4";
  r.task = {"t", "gemm", {}};
  r.schedule = {{"fault", fault}};
  r.latency.median_s = 1e-6;
  return r;
}

// Nodes laid out by a writer that knew a smaller or larger UcmohAstNode (the
// node_size rule) featurize like ours; the fast path and the AST read back
// agree on them.
TEST(AbiVersions, NodesOfAnotherSizeReadLikeOurs) {
  TempDir dir;
  auto set = ucmoh::LoadPlugins(dir.Write("plugins.json", ManifestJson({{"badast", TestPlugin("bad_ast")}})));
  ASSERT_TRUE(set.ok()) << set.status().message();
  auto ours = ucmoh::FeaturizeRecord(*set, BadAstRecord("none"));
  ASSERT_TRUE(ours.ok()) << ours.status().message();
  EXPECT_EQ(ours->num_tokens, 4);  // the target and intrinsic tokens, then the two stages
  for (const char* layout : {"narrow_nodes", "wide_nodes"}) {
    auto fast = ucmoh::FeaturizeRecord(*set, BadAstRecord(layout));
    ASSERT_TRUE(fast.ok()) << layout << ": " << fast.status().message();
    EXPECT_EQ(fast->values, ours->values) << layout;
    auto ast = ucmoh::LowerRecord(*set, BadAstRecord(layout));
    ASSERT_TRUE(ast.ok()) << layout << ": " << ast.status().message();
    auto slow = ucmoh::Featurize(*ast, ucmoh::HardwareParams{}, *set->Intrinsic("badast.dot4"));
    ASSERT_TRUE(slow.ok()) << slow.status().message();
    EXPECT_EQ(slow->values, ours->values) << layout;
  }
}

// A plugin's malformed AST is refused with one line naming the plugin and
// the fault, on the fast path and when read back as an AST, and never read
// past its last node (the sanitizer build would see that).
TEST(AbiVersions, MalformedAstsAreRefusedWithOneClearError) {
  TempDir dir;
  auto set = ucmoh::LoadPlugins(dir.Write("plugins.json", ManifestJson({{"badast", TestPlugin("bad_ast")}})));
  ASSERT_TRUE(set.ok()) << set.status().message();
  const std::pair<const char*, const char*> cases[] = {
      {"count_mismatch", "the plugin's AST lists 3 nodes but its roots hold 2"},
      {"ends_in_loop", "the plugin's AST ends inside a loop"},
      {"negative_children", "a loop has an unknown kind or a negative child count"},
      {"bad_loop_kind", "a loop has an unknown kind or a negative child count"},
      {"bad_stage_kind", "a stage has an unknown kind or memory scope"},
      {"bad_scope", "a stage has an unknown kind or memory scope"},
      {"too_deep", "the plugin's AST nests loops deeper than 256"},
      {"short_struct", "the plugin returned an AST struct this host cannot read"},
      {"no_ast", "lower returned no AST"}};
  for (const auto& [fault, expected] : cases) {
    auto tokens = ucmoh::FeaturizeRecord(*set, BadAstRecord(fault));
    auto ast = ucmoh::LowerRecord(*set, BadAstRecord(fault));
    for (const ucmoh::Status& status : {tokens.status(), ast.status()}) {
      EXPECT_FALSE(status.ok()) << fault;
      EXPECT_THAT(status.message(), HasSubstr("plugin 'badast'")) << fault;
      EXPECT_THAT(status.message(), HasSubstr(expected)) << fault;
      EXPECT_EQ(status.message().find('\n'), std::string::npos) << fault;
    }
  }
}

}  // namespace
