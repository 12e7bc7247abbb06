// `registry import autotvm`: TVM's AutoTVM logs of the x86 templates become
// x86 records. The shared BERT log (Xeon Platinum 8124M) is imported whole;
// two lines written here are lowered and their ASTs checked by hand against
// their knobs; bad lines each stop the import with FILE:LINE.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "command_runner.h"
#include "shared_data.h"
#include "ucmoh/x86/autotvm_importer.h"
#include "ucmoh/x86/x86_plugin.h"

namespace ucmoh::x86 {
namespace {

const char* const kSkylake = "llvm -keys=cpu -link-params=0 -mcpu=skylake-avx512 -model=platinum-8124m";

std::string LogLine(const std::string& target, const std::string& tmpl, const std::string& args,
                    const std::string& entity, const std::string& result) {
  return "{\"input\": [\"" + target + "\", \"" + tmpl + "\", " + args + ", {}], \"config\": {\"index\": 7, " +
         "\"code_hash\": null, \"entity\": " + entity + "}, \"result\": " + result +
         ", \"version\": 0.2, \"tvm_version\": \"0.8.dev0\"}";
}

const std::string kDenseArgs = R"([["TENSOR", [128, 768], "float32"], ["TENSOR", [768, 768], "float32"], null, "float32"])";
const std::string kPackKnobs = R"([["tile_y", "sp", [-1, 2, 8]], ["tile_x", "sp", [-1, 4, 32]], ["tile_k", "sp", [-1, 4]]])";
const std::string kNopackKnobs = R"([["tile_y", "sp", [-1, 1]], ["tile_x", "sp", [-1, 4]], ["tile_k", "sp", [-1, 16]]])";
const std::string kOk = "[[2.5e-05, 2.7e-05, 2.6e-05], 0, 1.5, 1610455202.5]";

class AutoTvmImport : public ::testing::Test {
 protected:
  std::string Write(const std::string& name, const std::vector<std::string>& lines) {
    const std::string path = dir_ + "/" + name;
    std::ofstream out(path);
    for (const std::string& line : lines) out << line << "\n";
    return path;
  }
  // One folder per test process: ctest runs tests in parallel, and two of
  // them writing one "bad.log" made one read the other's half-written file.
  void SetUp() override {
    dir_ = ::testing::TempDir() + "autotvm_import_test_" + std::to_string(::getpid());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir_;
};

// Programs lower on the record's machine, never this one.
ProgramAst Lowered(const Record& r) {
  auto ast = X86Plugin().Lower(r.task, r.intrinsic, r.schedule, r.hardware);
  EXPECT_TRUE(ast.ok()) << ast.status().message();
  return ast.ok() ? *ast : ProgramAst{};
}

const AstNode& Only(const AstNode& loop) {
  EXPECT_EQ(loop.children.size(), 1u) << loop.loop.var;
  return loop.children.front();
}

TEST_F(AutoTvmImport, SharedSkylakeLogGivesItsMeasuredRecordsAndCountsItsFailures) {
  UCMOH_SKIP_WITHOUT_SHARED_DATA();
  auto imported = ImportAutoTvmLog(testing::SharedDataDir() + "/tvm-autotvm/platinum-8124m.bert-B1-float32.kernel.log");
  ASSERT_TRUE(imported.ok()) << imported.status().message();
  // README: 6,800 entries, 6,150 with error_no 0; the rest are build timeouts and 3 runtime errors.
  EXPECT_EQ(imported->records.size(), 6150u);
  EXPECT_EQ(imported->failures, (std::map<std::string, int64_t>{{"BUILD_TIMEOUT", 647}, {"RUNTIME_DEVICE", 3}}));
  std::set<std::string> tasks;
  for (const Record& r : imported->records) {
    tasks.insert(r.task.key);
    ASSERT_EQ(r.intrinsic, "x86.avx512");
    ASSERT_EQ(r.hardware.model, "Intel(R) Xeon(R) Platinum 8124M CPU @ 3.00GHz");
    ASSERT_GT(r.latency.median_s, 0);
  }
  EXPECT_EQ(tasks.size(), 11u);  // 11 template x shape pairs
  const Record& first = imported->records.front();
  EXPECT_EQ(first.task.key, "autotvm.dense_nopack.m1_n768_k768.avx512");
  EXPECT_EQ(std::get<int64_t>(first.provenance.details.at("line")), 1);
  EXPECT_EQ(std::get<std::string>(first.provenance.details.at("tvm_version")), "0.8.dev0");
  EXPECT_DOUBLE_EQ(first.latency.median_s, 3.431114707461084e-05);
  // Its knobs: tile_y [-1, 1], tile_x [-1, 4], tile_k [-1, 16] over M = 1, N = K = 768.
  EXPECT_EQ(first.schedule, (ParamMap{{"threads", int64_t{18}}, {"tile_y_0", int64_t{1}}, {"tile_y_1", int64_t{1}},
                                      {"tile_x_0", int64_t{192}}, {"tile_x_1", int64_t{4}},
                                      {"tile_k_0", int64_t{48}}, {"tile_k_1", int64_t{16}}}));
  for (size_t i = 0; i < imported->records.size(); i += 97) Lowered(imported->records[i]);
}

// dense_pack, M = 128, N = K = 768: tile_y [8, 2, 8], tile_x [6, 4, 32], tile_k [192, 4].
TEST_F(AutoTvmImport, DensePackLowersToTvmsNestForItsKnobs) {
  auto imported = ImportAutoTvmLog(Write("pack.log", {LogLine(kSkylake, "dense_pack.x86", kDenseArgs, kPackKnobs, kOk)}));
  ASSERT_TRUE(imported.ok()) << imported.status().message();
  ASSERT_EQ(imported->records.size(), 1u);
  const Record& r = imported->records[0];
  EXPECT_EQ(r.task.key, "autotvm.dense_pack.m128_n768_k768.avx512");
  EXPECT_DOUBLE_EQ(r.latency.median_s, 2.6e-05);
  EXPECT_EQ(r.latency.repeats, 3);
  const ProgramAst ast = Lowered(r);
  ASSERT_EQ(ast.roots.size(), 1u);
  const AstNode& thread = ast.roots[0];
  EXPECT_EQ(thread.loop.kind, LoopKind::kParallel);
  EXPECT_EQ(thread.loop.extent, 18);                   // 6 x 8 = 48 fused iterations over 18 threads
  const AstNode& per_thread = Only(thread);
  EXPECT_EQ(per_thread.loop.extent, 3);                // ceil(48 / 18)
  const AstNode& xyo = Only(per_thread);
  EXPECT_EQ(xyo.loop.extent, 2 * 4);                   // yo x xo tiles
  ASSERT_EQ(xyo.children.size(), 2u);                  // the k loop, then store_C
  const AstNode& k_outer = xyo.children[0];
  EXPECT_EQ(k_outer.loop.extent, 192);
  const AstNode& k_inner = Only(k_outer);
  EXPECT_EQ(k_inner.loop.kind, LoopKind::kUnrolled);
  EXPECT_EQ(k_inner.loop.extent, 4);
  ASSERT_EQ(k_inner.children.size(), 3u);
  const Stage& load_a = k_inner.children[0].stage;
  const Stage& load_b = k_inner.children[1].stage;
  const Stage& fma = k_inner.children[2].stage;
  EXPECT_EQ(load_a.bytes, 8 * 4);                      // yi = 8 broadcasts of one float
  EXPECT_EQ(load_a.element_stride, 768);               // rows of data are K apart
  EXPECT_EQ(load_b.bytes, 32 * 4);                     // xi = 32 lanes of the packed weight
  EXPECT_EQ(load_b.element_stride, 1);
  EXPECT_EQ(fma.intrinsic_calls, 8 * 2);               // yi x (32 / 16 lanes)
  EXPECT_EQ(fma.flops_per_call, 32);
  const Stage& store = xyo.children[1].stage;
  EXPECT_EQ(store.bytes, 8 * 32 * 4);
  EXPECT_EQ(ast.buffers[1].shape, (std::vector<int64_t>{768 / 32, 768, 32}));
  EXPECT_EQ(ast.template_inputs.at("mr"), 8);
  EXPECT_EQ(ast.template_inputs.at("nr_vec"), 2);
  EXPECT_EQ(ast.template_inputs.at("mc"), 16);
  EXPECT_EQ(ast.template_inputs.at("nc"), 128);
  EXPECT_EQ(ast.template_inputs.at("k_unroll"), 4);
}

// dense_nopack, M = 128: tile_y [128, 1], tile_x [192, 4], tile_k [48, 16].
TEST_F(AutoTvmImport, DenseNopackVectorizesAlongKAndReducesTheLanes) {
  auto imported = ImportAutoTvmLog(Write("nopack.log", {LogLine(kSkylake, "dense_nopack.x86", kDenseArgs, kNopackKnobs, kOk)}));
  ASSERT_TRUE(imported.ok()) << imported.status().message();
  const ProgramAst ast = Lowered(imported->records.at(0));
  const AstNode& per_thread = Only(ast.roots.at(0));
  EXPECT_EQ(per_thread.loop.extent, (128 * 192 + 17) / 18);
  ASSERT_EQ(per_thread.children.size(), 3u);  // k loop, lane reduction, store
  const AstNode& k_outer = per_thread.children[0];
  EXPECT_EQ(k_outer.loop.extent, 48);
  EXPECT_EQ(k_outer.children.at(0).stage.bytes, 1 * 16 * 4);  // one row of 16 k-lanes of data
  EXPECT_EQ(k_outer.children.at(1).stage.bytes, 4 * 16 * 4);  // four weight rows
  EXPECT_EQ(k_outer.children.at(2).stage.intrinsic_calls, 4);
  EXPECT_EQ(per_thread.children[1].stage.name, "reduce_lanes");
  EXPECT_EQ(per_thread.children[2].stage.bytes, 4 * 4);
}

TEST_F(AutoTvmImport, FailedMeasurementsAreCountedNeverRecords) {
  const std::string knobs = kPackKnobs;
  auto imported = ImportAutoTvmLog(Write("errors.log", {
      LogLine(kSkylake, "dense_pack.x86", kDenseArgs, knobs, kOk),
      LogLine(kSkylake, "dense_pack.x86", kDenseArgs, knobs, "[[1000000000.0], 7, 10.0, 1610455202.5]"),
      LogLine(kSkylake, "dense_pack.x86", kDenseArgs, knobs, "[[1000000000.0], 6, 10.0, 1610455202.5]"),
  }));
  ASSERT_TRUE(imported.ok()) << imported.status().message();
  EXPECT_EQ(imported->records.size(), 1u);
  EXPECT_EQ(imported->failures, (std::map<std::string, int64_t>{{"BUILD_TIMEOUT", 1}, {"RUN_TIMEOUT", 1}}));
}

TEST_F(AutoTvmImport, BadLinesStopTheImportWithTheirFileAndLine) {
  const std::string good = LogLine(kSkylake, "dense_pack.x86", kDenseArgs, kPackKnobs, kOk);
  const std::string no_k = R"([["tile_y", "sp", [-1, 2, 8]], ["tile_x", "sp", [-1, 4, 32]]])";
  const std::string bad_split = R"([["tile_y", "sp", [-1, 7, 8]], ["tile_x", "sp", [-1, 4, 32]], ["tile_k", "sp", [-1, 4]]])";
  const std::string vnni = "llvm -mcpu=cascadelake -model=platinum-8280";
  const std::pair<std::string, std::string> cases[] = {
      {good.substr(0, good.size() / 2), "not JSON"},
      {LogLine(kSkylake, "conv2d_NCHWc.x86", kDenseArgs, kPackKnobs, kOk), "template 'conv2d_NCHWc.x86' is not supported"},
      {LogLine(kSkylake, "dense_pack.x86", kDenseArgs, no_k, kOk), "needs knob 'tile_k'"},
      {LogLine(kSkylake, "dense_pack.x86", kDenseArgs, bad_split, kOk), "do not divide its extent 128"},
      {LogLine(vnni, "dense_pack.x86", kDenseArgs, kPackKnobs, kOk), "names no known CPU (-model=platinum-8280"},
      {LogLine("cuda -model=t4", "dense_small_batch.cuda", kDenseArgs, kPackKnobs, kOk), "is not an llvm (CPU) target"},
      {LogLine(kSkylake, "dense_pack.x86", kDenseArgs, kPackKnobs, "[[], 0, 1.0, 1.0]"), "holds no cost"},
  };
  for (const auto& [line, message] : cases) {
    const std::string path = Write("bad.log", {good, line});
    auto imported = ImportAutoTvmLog(path);
    ASSERT_FALSE(imported.ok()) << message;
    EXPECT_EQ(imported.status().message().rfind(path + ":2: ", 0), 0u) << imported.status().message();
    EXPECT_NE(imported.status().message().find(message), std::string::npos) << imported.status().message();
  }
}

// Through the CLI: a bad log fails with one line and leaves no output file.
TEST_F(AutoTvmImport, CliWritesNothingForABadLog) {
  const std::string out = dir_ + "/out.jsonl";
  std::filesystem::remove(out);
  const std::string cli = std::string(UCMOH_BINARY_DIR) + "/bin/registry --plugins " + UCMOH_SOURCE_DIR +
                          "/plugins.json import autotvm ";
  const std::string good = LogLine(kSkylake, "dense_pack.x86", kDenseArgs, kPackKnobs, kOk);
  const std::string failed = LogLine(kSkylake, "dense_pack.x86", kDenseArgs, kPackKnobs, "[[1e9], 6, 10.0, 1.0]");
  auto bad = testing::RunCommand(cli + Write("bad.log", {good, "{\"input\": ["}) + " -o " + out);
  EXPECT_NE(bad.rc, 0);
  EXPECT_NE(bad.out.find("bad.log:2: "), std::string::npos) << bad.out;
  EXPECT_FALSE(std::filesystem::exists(out));
  auto ok = testing::RunCommand(cli + Write("ok.log", {good, failed}) + " -o " + out);
  EXPECT_EQ(ok.rc, 0) << ok.out;
  EXPECT_NE(ok.out.find("1 records"), std::string::npos) << ok.out;
  EXPECT_NE(ok.out.find("BUILD_TIMEOUT: 1"), std::string::npos) << ok.out;
  EXPECT_TRUE(std::filesystem::exists(out));
}

}  // namespace
}  // namespace ucmoh::x86
