// toyaccel through the loader, as the registry would use it: a vendor's
// target that describes itself, samples schedules and lowers them to the
// same load/compute/store AST as the project's own plugins.
#include <cmath>
#include <functional>
#include <map>
#include <set>

#include "plugin_test_util.h"
#include "ucmoh/ast_program.h"
#include "ucmoh/features.h"
#include "ucmoh/program_featurizer.h"
#include "ucmoh/plugin_loader.h"

namespace {

using plugin_test::ManifestJson;
using plugin_test::TempDir;
using ucmoh::AstNode;
using ucmoh::StageKind;

constexpr const char* kMac = "toyaccel.mac16x16";

class ToyAccel : public testing::Test {
 protected:
  void SetUp() override {
    std::string manifest =
        dir_.Write("plugins.json", ManifestJson({{"toyaccel", plugin_test::TestPlugin("toyaccel")}}));
    auto set = ucmoh::LoadPlugins(manifest);
    ASSERT_TRUE(set.ok()) << set.status().message();
    ASSERT_EQ(set->plugins().size(), 1u);
    set_ = std::move(*set);
    plugin_ = set_.plugins()[0].plugin;
  }

  static ucmoh::Task Gemm(int64_t m, int64_t n, int64_t k) {
    return ucmoh::Task{"test.gemm", "gemm", {{"m", m}, {"n", n}, {"k", k}}};
  }

  TempDir dir_;
  ucmoh::PluginSet set_;
  std::shared_ptr<ucmoh::TargetPlugin> plugin_;
};

struct Walk {
  std::map<StageKind, int> stages;
  double mac_calls = 0;        // summed over every enclosing loop iteration
  bool finite_template = true;
};

void Visit(const AstNode& node, double trips, Walk& walk) {
  if (node.is_loop) {
    for (const AstNode& child : node.children) Visit(child, trips * node.loop.extent, walk);
    return;
  }
  walk.stages[node.stage.kind]++;
  if (node.stage.kind == StageKind::kCompute) walk.mac_calls += trips * node.stage.intrinsic_calls;
  for (float v : node.stage.template_values) walk.finite_template &= std::isfinite(v);
}

TEST_F(ToyAccel, DescribesItsTargetAndIntrinsic) {
  ucmoh::TargetInfo target = plugin_->Target();
  EXPECT_EQ(target.name, "toyaccel");
  EXPECT_EQ(target.hardware.l1_bytes, 256 * 1024);
  auto intrinsics = plugin_->Intrinsics();
  ASSERT_EQ(intrinsics.size(), 1u);
  EXPECT_EQ(intrinsics[0].name, kMac);
  EXPECT_EQ(intrinsics[0].m * intrinsics[0].n * intrinsics[0].k, 16 * 16 * 16);
  EXPECT_EQ(intrinsics[0].ops_per_call, 2.0 * 16 * 16 * 16);
  EXPECT_EQ(intrinsics[0].input_type, "s8");
  EXPECT_EQ(intrinsics[0].accum_type, "s32");
  EXPECT_EQ(plugin_->TemplateDimNames().size(), static_cast<size_t>(ucmoh::kTemplateDims));
}

TEST_F(ToyAccel, SamplesDistinctReproducibleSchedules) {
  auto tasks = plugin_->Tasks("tiny_bert", kMac);
  ASSERT_TRUE(tasks.ok()) << tasks.status().message();
  ASSERT_EQ(tasks->size(), 4u);
  for (const ucmoh::Task& task : *tasks) {
    auto a = plugin_->SampleSchedules(task, kMac, 40, 1);
    auto b = plugin_->SampleSchedules(task, kMac, 40, 1);
    auto c = plugin_->SampleSchedules(task, kMac, 40, 2);
    ASSERT_TRUE(a.ok() && b.ok() && c.ok()) << task.key;
    ASSERT_EQ(a->size(), 40u);
    std::set<std::string> distinct;
    for (const auto& s : *a) distinct.insert(ucmoh::CanonicalString(s));
    EXPECT_EQ(distinct.size(), 40u) << task.key;
    EXPECT_EQ(*a, *b) << "same seed, same schedules";
    EXPECT_NE(*a, *c) << "another seed, another draw";
  }
  // A tiny GEMM has a tiny space: all of it comes back, nothing invented.
  auto small = plugin_->SampleSchedules(Gemm(16, 16, 16), kMac, 100, 3);
  ASSERT_TRUE(small.ok());
  EXPECT_EQ(small->size(), 4u);  // 16x16x16 tiles x double_buffer x order
}

TEST_F(ToyAccel, LowersToLoadComputeStoreWithAllTheWork) {
  ucmoh::Task task = Gemm(100, 200, 300);  // ragged: edge tiles are padded
  auto schedules = plugin_->SampleSchedules(task, kMac, 30, 11);
  ASSERT_TRUE(schedules.ok());
  ASSERT_EQ(schedules->size(), 30u);
  for (const ucmoh::ParamMap& schedule : *schedules) {
    auto ast = plugin_->Lower(task, kMac, schedule, plugin_->Target().hardware);
    ASSERT_TRUE(ast.ok()) << ast.status().message();
    Walk walk;
    for (const AstNode& root : ast->roots) Visit(root, 1, walk);
    EXPECT_EQ(walk.stages[StageKind::kLoad], 2);
    EXPECT_EQ(walk.stages[StageKind::kCompute], 1);
    EXPECT_EQ(walk.stages[StageKind::kStore], 1);
    EXPECT_TRUE(walk.finite_template);
    // Every padded 16x16x16 block is issued exactly once.
    int64_t tm = *ucmoh::GetInt(schedule, "tile_m"), tn = *ucmoh::GetInt(schedule, "tile_n"),
            tk = *ucmoh::GetInt(schedule, "tile_k");
    auto pad = [](int64_t d, int64_t t) { return (d + t - 1) / t * t; };
    EXPECT_EQ(walk.mac_calls, static_cast<double>(pad(100, tm) * pad(200, tn) * pad(300, tk)) / (16 * 16 * 16))
        << ucmoh::CanonicalString(schedule);
  }
}

// The vendor's AST becomes the same token matrix as every other target's:
// target, intrinsic, then one token per stage ending in its template values.
TEST_F(ToyAccel, FeaturizesIntoTheUnifiedTokens) {
  ucmoh::Task task = Gemm(128, 768, 256);
  auto schedules = plugin_->SampleSchedules(task, kMac, 5, 4);
  ASSERT_TRUE(schedules.ok());
  ASSERT_EQ(schedules->size(), 5u);
  for (const ucmoh::ParamMap& schedule : *schedules) {
    auto ast = plugin_->Lower(task, kMac, schedule, plugin_->Target().hardware);
    ASSERT_TRUE(ast.ok());
    auto tokens = ucmoh::Featurize(*ast, plugin_->Target().hardware, plugin_->Intrinsics()[0]);
    ASSERT_TRUE(tokens.ok()) << tokens.status().message();
    ASSERT_EQ(tokens->num_tokens, 2 + 4);  // load_A, load_B, mac, store_C
    std::vector<const ucmoh::Stage*> stages;
    std::function<void(const AstNode&)> collect = [&](const AstNode& node) {
      if (!node.is_loop) stages.push_back(&node.stage);
      for (const AstNode& child : node.children) collect(child);
    };
    for (const AstNode& root : ast->roots) collect(root);
    ASSERT_EQ(stages.size(), 4u);
    for (int t = 0; t < 4; ++t) {
      for (int d = 0; d < ucmoh::kTemplateDims; ++d) {
        EXPECT_EQ(tokens->row(2 + t)[ucmoh::kGenericDims + d], stages[t]->template_values[d])
            << stages[t]->name << " template " << d;
      }
    }
  }
}

// A compiler's AST of a toyaccel program: the plugin's StageTemplate gives
// each stage the values Lower gave it, so the tokens are the same.
TEST_F(ToyAccel, TakesProgramsAsAsts) {
  ucmoh::Task task = Gemm(100, 200, 300);
  auto schedules = plugin_->SampleSchedules(task, kMac, 6, 9);
  ASSERT_TRUE(schedules.ok());
  ASSERT_FALSE(schedules->empty());
  for (const ucmoh::ParamMap& schedule : *schedules) {
    ucmoh::Record r;
    r.target = "toyaccel";
    r.intrinsic = kMac;
    r.task = task;
    r.schedule = schedule;
    r.hardware = plugin_->Target().hardware;
    auto program = ucmoh::RecordAsAstProgram(set_, r);
    ASSERT_TRUE(program.ok()) << program.status().message();
    EXPECT_EQ(program->ast.template_inputs.size(), 5u);
    auto parsed = ucmoh::ParseAstProgram(ucmoh::AstProgramToJson(*program).dump(), set_);
    ASSERT_TRUE(parsed.ok()) << parsed.status().message();
    auto want = ucmoh::FeaturizeRecord(set_, r);
    auto got = ucmoh::FeaturizeAstProgram(set_, *parsed);
    ASSERT_TRUE(want.ok() && got.ok());
    EXPECT_EQ(want->values, got->values) << ucmoh::CanonicalString(schedule);
  }
}

TEST_F(ToyAccel, RejectsWhatTheHardwareCannotRun) {
  ucmoh::Task task = Gemm(64, 64, 64);
  ucmoh::ParamMap good = {{"tile_m", int64_t{32}}, {"tile_n", int64_t{32}}, {"tile_k", int64_t{32}},
                          {"double_buffer", int64_t{1}}, {"order", std::string("mn")}};
  EXPECT_TRUE(plugin_->Lower(task, kMac, good, plugin_->Target().hardware).ok());
  EXPECT_FALSE(plugin_->Lower(task, "toyaccel.mac8x8", good, plugin_->Target().hardware).ok());

  ucmoh::ParamMap ragged = good;
  ragged["tile_m"] = int64_t{24};
  EXPECT_THAT(plugin_->Lower(task, kMac, ragged, plugin_->Target().hardware).status().message(), testing::HasSubstr("multiple of 16"));

  ucmoh::ParamMap huge = good;  // 512x512 s32 accumulators alone are 1 MiB
  huge["tile_m"] = int64_t{512};
  huge["tile_n"] = int64_t{512};
  EXPECT_THAT(plugin_->Lower(task, kMac, huge, plugin_->Target().hardware).status().message(), testing::HasSubstr("scratchpad"));

  ucmoh::Task conv{"c", "conv2d", {}};
  EXPECT_FALSE(plugin_->Lower(conv, kMac, good, plugin_->Target().hardware).ok());
  EXPECT_FALSE(plugin_->Tasks("resnet50", kMac).ok());
}

}  // namespace
