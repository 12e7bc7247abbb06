// End to end through the `registry` binary (issue 6): records import ->
// add-intrinsic x2 -> versions -> alias -> pull -> the TorchScript module
// scored in C++ (torch::jit::load) and in Python against CostModel::Predict;
// plus the refusals and the all-or-nothing records add. The tests on CUTLASS
// rows skip only where the shared data folder is absent.
#include <gtest/gtest.h>
#include <unistd.h>
#include <torch/script.h>
#include <torch/torch.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "command_runner.h"
#include "shared_data.h"
#include "ucmoh/features.h"
#include "ucmoh/metrics.h"
#include "ucmoh/plugin_loader.h"
#include "ucmoh/program_featurizer.h"
#include "ucmoh/program_set.h"
#include "ucmoh/records_io.h"
#include "ucmoh/registry/registry_ops.h"
#include "ucmoh/registry/registry_store.h"

namespace fs = std::filesystem;

namespace {

using Run = ucmoh::testing::CommandResult;

std::string Dir() {
  static const std::string d = ucmoh::testing::ScratchDir("cli_test");
  return d;
}

Run Registry(const std::string& db, const std::string& args) {
  return ucmoh::testing::RunCommand(std::string(UCMOH_REGISTRY_BIN) + " --plugins " + UCMOH_SOURCE_DIR +
                                    "/plugins.json --db " + db + " " + args);
}

std::string CutlassSubset(int rows) { return ucmoh::testing::WriteCutlassSubset(rows, Dir() + "/subset.csv"); }

TEST(RegistryCli, RefusesUnknownIntrinsicAndMissingRecords) {
  const std::string db = Dir() + "/refuse.db";
  ASSERT_EQ(Registry(db, "init").rc, 0);
  auto r = Registry(db, "add-intrinsic nosuch.thing -q");
  EXPECT_NE(r.rc, 0);
  EXPECT_NE(r.out.find("no loaded plugin supplies intrinsic 'nosuch.thing'"), std::string::npos) << r.out;
  r = Registry(db, "add-intrinsic tensorcore.i8816 -q");
  EXPECT_NE(r.rc, 0);
  EXPECT_NE(r.out.find("no records for 'tensorcore.i8816'"), std::string::npos) << r.out;
  // Only what can produce tensorcore records: a records file or the plugin's
  // cutlass importer. The tensorcore plugin cannot measure, so no `registry
  // measure` is suggested.
  EXPECT_NE(r.out.find("registry records add"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("records import cutlass"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("registry measure"), std::string::npos) << r.out;
  // arm.sdot has no data anywhere: the fix is to measure it on an aarch64
  // host over ssh, which the message names.
  r = Registry(db, "add-intrinsic arm.sdot -q");
  EXPECT_NE(r.rc, 0);
  EXPECT_NE(r.out.find("no records for 'arm.sdot'"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("`registry measure arm.sdot --host USER@HOST -o FILE.jsonl`"), std::string::npos) << r.out;
}

TEST(RegistryCli, RecordsAddWithBadLineWritesNothing) {
  UCMOH_SKIP_WITHOUT_SHARED_DATA();
  const std::string csv = CutlassSubset(40);
  const std::string db = Dir() + "/bad.db";
  ASSERT_EQ(Registry(db, "init").rc, 0);
  // Records from the importer, then one with an unknown intrinsic on line 3.
  const std::string good = Dir() + "/good.jsonl";
  auto imp = Registry(db, "import cutlass " + csv + " -o " + good);
  ASSERT_EQ(imp.rc, 0) << imp.out;
  std::ifstream in(good);
  std::string l1, l2, l3;
  std::getline(in, l1);
  std::getline(in, l2);
  std::getline(in, l3);
  auto bad = nlohmann::json::parse(l3);
  bad["intrinsic"] = "tensorcore.nosuch";
  const std::string file = Dir() + "/bad.jsonl";
  std::ofstream(file) << l1 << "\n" << l2 << "\n" << bad.dump() << "\n";
  auto r = Registry(db, "records add " + file);
  EXPECT_NE(r.rc, 0);
  EXPECT_NE(r.out.find(file + ":3:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("unknown intrinsic 'tensorcore.nosuch'"), std::string::npos) << r.out;
  auto store = ucmoh::registry::RegistryStore::Open(db, ucmoh::registry::OpenMode::kReadOnly);
  ASSERT_TRUE(store.ok());
  auto names = (*store)->RecordIntrinsics();
  ASSERT_TRUE(names.ok());
  EXPECT_TRUE(names->empty());
}

// evaluate --scores: one line per held-out program, from which the printed
// PCA is recomputed exactly; an unwritable path is one error, nothing printed.
TEST(RegistryCli, EvaluateScoresReproduceTheTable) {
  UCMOH_SKIP_WITHOUT_SHARED_DATA();
  const std::string db = Dir() + "/scores.db";
  const std::string records = Dir() + "/scores.jsonl";
  ASSERT_EQ(Registry(db, "import cutlass " + CutlassSubset(366) + " -o " + records).rc, 0);
  const std::string scores = Dir() + "/scores.out.jsonl";
  auto r = Registry(db, "evaluate --baseline xgb --data " + records + " --scores " + scores + " --json");
  ASSERT_EQ(r.rc, 0) << r.out;
  const auto table = nlohmann::json::parse(r.out);
  const auto held_out = table["held_out_tasks"].get<std::vector<std::string>>();

  std::vector<ucmoh::TaskedProgram> programs;
  std::vector<float> values;
  std::ifstream in(scores);
  for (std::string line; std::getline(in, line);) {
    const auto row = nlohmann::json::parse(line);
    EXPECT_NE(std::find(held_out.begin(), held_out.end(), row["task"].get<std::string>()), held_out.end()) << line;
    EXPECT_FALSE(row["program"].get<std::string>().empty()) << line;
    ucmoh::TaskedProgram p;
    p.task = row["task"];
    p.intrinsic = row["intrinsic"];
    p.latency_s = row["latency_s"];
    programs.push_back(std::move(p));
    values.push_back(row["score"].get<float>());
  }
  ASSERT_GT(programs.size(), 10u);
  const auto recomputed = ucmoh::EvaluateRanking(ucmoh::GroupIntoTasks(std::move(programs)), values);
  EXPECT_EQ(recomputed.programs, table["all"]["programs"].get<int64_t>());
  EXPECT_NEAR(recomputed.pca, table["all"]["pca"].get<double>(), 1e-12);
  // tools/compare-scores, which the studies in docs/benchmarks.md use, agrees.
  auto compared = ucmoh::testing::RunCommand("python3 " + std::string(UCMOH_SOURCE_DIR) +
                                             "/tools/compare-scores xgb=" + scores);
  ASSERT_EQ(compared.rc, 0) << compared.out;
  char expected_row[64];
  std::snprintf(expected_row, sizeof expected_row, "| xgb | %.3f |", table["all"]["pca"].get<double>());
  EXPECT_NE(compared.out.find(expected_row), std::string::npos) << compared.out;

  r = Registry(db, "evaluate --baseline xgb --data " + records + " --scores " + Dir() + "/no/such/dir/s.jsonl");
  EXPECT_NE(r.rc, 0);
  EXPECT_NE(r.out.find("/no/such/dir/s.jsonl"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("PCA"), std::string::npos) << r.out;
}

// `features --dump-tokens` prints exactly the featurizer's tokens, record by
// record (committed MetaSchedule records: nothing from ../shared), and a bad
// line prints one error naming it and no tokens at all.
TEST(RegistryCli, DumpTokensAreTheFeaturizersTokens) {
  const std::string records = Dir() + "/tokens.jsonl";
  ASSERT_EQ(ucmoh::testing::RunCommand("zcat " + std::string(UCMOH_SOURCE_DIR) +
                                       "/data/metaschedule/emeraldrapids.float32.jsonl.gz | head -n 30 > " + records)
                .rc,
            0);
  auto r = Registry(Dir() + "/tokens.db", "features --dump-tokens " + records);
  ASSERT_EQ(r.rc, 0) << r.out.substr(0, 400);
  auto plugins = ucmoh::LoadPlugins(std::string(UCMOH_SOURCE_DIR) + "/plugins.json");
  ASSERT_TRUE(plugins.ok()) << plugins.status().message();
  auto expected = ucmoh::ReadRecordsFile(records);
  ASSERT_TRUE(expected.ok()) << expected.status().message();
  ASSERT_EQ(expected->size(), 30u) << "the committed records did not reach the test";
  std::istringstream printed(r.out);
  size_t rows = 0;
  for (std::string line; std::getline(printed, line); ++rows) {
    ASSERT_LT(rows, expected->size()) << line.substr(0, 200);
    const auto& [number, record] = (*expected)[rows];
    const auto row = nlohmann::json::parse(line);
    EXPECT_EQ(row["line"].get<int64_t>(), number);
    EXPECT_EQ(row["task"].get<std::string>(), record.task.key);
    EXPECT_EQ(row["latency_s"].get<double>(), record.latency.median_s);
    auto tokens = ucmoh::FeaturizeRecord(*plugins, record);
    ASSERT_TRUE(tokens.ok()) << tokens.status().message();
    ASSERT_EQ(row["tokens"].size(), static_cast<size_t>(tokens->num_tokens));
    for (int t = 0; t < tokens->num_tokens; ++t)
      for (int d = 0; d < ucmoh::kFeatureDim; ++d)
        ASSERT_EQ(row["tokens"][t][d].get<float>(), tokens->row(t)[d]) << "line " << number << " token " << t << " dim " << d;
  }
  EXPECT_EQ(rows, expected->size());

  // Line 7 still parses but names an intrinsic no plugin supplies: it fails
  // after six records featurized, and none of them may be printed.
  ASSERT_EQ(ucmoh::testing::RunCommand("sed -i '7s/\"x86.avx512\"/\"x86.nosuch\"/g' " + records).rc, 0);
  r = Registry(Dir() + "/tokens.db", "features --dump-tokens " + records);
  EXPECT_NE(r.rc, 0);
  EXPECT_NE(r.out.find(records + ":7"), std::string::npos) << r.out.substr(0, 400);
  EXPECT_EQ(r.out.find("\"tokens\""), std::string::npos) << r.out.substr(0, 400);
}

// The registry's scores for up to 40 tensorcore.i16832 records under
// version 2, and the padded tokens and mask a TorchScript caller passes.
struct ScoredPrograms {
  torch::Tensor tokens, valid;
  std::vector<float> expected;
};

void ScoreWithTheRegistry(const std::string& db, ScoredPrograms* out) {
  auto plugins = ucmoh::LoadPlugins(std::string(UCMOH_SOURCE_DIR) + "/plugins.json");
  ASSERT_TRUE(plugins.ok()) << plugins.status().message();
  auto store = ucmoh::registry::RegistryStore::Open(db, ucmoh::registry::OpenMode::kReadOnly);
  ASSERT_TRUE(store.ok());
  auto records = (*store)->ReadRecords("tensorcore.i16832");
  ASSERT_TRUE(records.ok());
  records->resize(std::min<size_t>(records->size(), 40));
  auto set = ucmoh::BuildProgramSet(*plugins, *records);
  ASSERT_TRUE(set.ok());
  ASSERT_GT(set->size(), 0u) << "no tensorcore.i16832 program to score";
  auto model = ucmoh::registry::LoadVersionModel(**store, 2);
  ASSERT_TRUE(model.ok());
  auto expected = model->Predict(*set);
  ASSERT_TRUE(expected.ok());
  out->expected = *expected;

  const int64_t B = static_cast<int64_t>(set->size()), T = set->max_tokens(), D = ucmoh::kFeatureDim;
  out->tokens = torch::zeros({B, T, D});
  out->valid = torch::zeros({B, T});
  for (int64_t b = 0; b < B; ++b) {
    const auto& m = set->tokens[b];
    for (int t = 0; t < m.num_tokens; ++t) {
      out->valid[b][t] = 1.0;
      for (int d = 0; d < D; ++d) out->tokens[b][t][d] = m.row(t)[d];
    }
  }
}

void ExpectScoresMatch(const std::vector<double>& got, const std::vector<float>& want, const std::string& who) {
  ASSERT_EQ(got.size(), want.size()) << who;
  for (size_t b = 0; b < got.size(); ++b) {
    EXPECT_NEAR(got[b], want[b], 1e-5 * std::max(1.0, std::abs(static_cast<double>(want[b]))))
        << who << ", program " << b;
  }
}

// The pulled model.pt scored by /usr/bin/python3's torch.jit.load (python3-torch
// is one of the packages tools/setup installs, so its absence is a failure).
void ScoreInPython(const std::string& model_pt, const ScoredPrograms& in, std::vector<double>* scores) {
  ASSERT_EQ(std::system("/usr/bin/python3 -c 'import torch' >/dev/null 2>&1"), 0)
      << "/usr/bin/python3 cannot import torch; install python3-torch (tools/setup)";
  nlohmann::json doc = {{"tokens", nlohmann::json::array()}, {"valid", nlohmann::json::array()}};
  for (int64_t b = 0; b < in.tokens.size(0); ++b) {
    nlohmann::json tb = nlohmann::json::array(), vb = nlohmann::json::array();
    for (int64_t t = 0; t < in.tokens.size(1); ++t) {
      std::vector<float> row(in.tokens.size(2));
      for (int64_t d = 0; d < in.tokens.size(2); ++d) row[d] = in.tokens[b][t][d].item<float>();
      tb.push_back(row);
      vb.push_back(in.valid[b][t].item<float>());
    }
    doc["tokens"].push_back(tb);
    doc["valid"].push_back(vb);
  }
  std::ofstream(Dir() + "/tokens.json") << doc.dump();
  std::ofstream(Dir() + "/check.py") << "import json, sys, torch\n"
                                        "m = torch.jit.load(sys.argv[1])\n"
                                        "d = json.load(open(sys.argv[2]))\n"
                                        "s = m(torch.tensor(d['tokens'], dtype=torch.float32), "
                                        "torch.tensor(d['valid'], dtype=torch.float32))\n"
                                        "json.dump(s.tolist(), open(sys.argv[3], 'w'))\n";
  const std::string py = "/usr/bin/python3 " + Dir() + "/check.py " + model_pt + " " + Dir() + "/tokens.json " +
                         Dir() + "/py_scores.json";
  ASSERT_EQ(std::system(py.c_str()), 0) << py;
  *scores = nlohmann::json::parse(std::ifstream(Dir() + "/py_scores.json")).get<std::vector<double>>();
}

TEST(RegistryCli, LifelongFlowAndPull) {
  UCMOH_SKIP_WITHOUT_SHARED_DATA();
  const std::string csv = CutlassSubset(366);
  const std::string db = Dir() + "/flow.db";
  ASSERT_EQ(Registry(db, "init").rc, 0);
  auto r = Registry(db, "records import cutlass " + csv);
  ASSERT_EQ(r.rc, 0) << r.out;
  r = Registry(db, "add-intrinsic tensorcore.i8816 --epochs 3 -q");
  ASSERT_EQ(r.rc, 0) << r.out;
  r = Registry(db, "add-intrinsic tensorcore.i16832 --epochs 3 --lambda 100 -q");  // replay has no λ
  EXPECT_NE(r.rc, 0);
  EXPECT_NE(r.out.find("--lambda: method 'replay' has no EWC penalty"), std::string::npos) << r.out;
  r = Registry(db, "add-intrinsic tensorcore.i16832 --epochs 3 -q");
  ASSERT_EQ(r.rc, 0) << r.out;
  r = Registry(db, "add-intrinsic tensorcore.i8816 -q");
  EXPECT_NE(r.rc, 0);
  EXPECT_NE(r.out.find("already learned"), std::string::npos) << r.out;
  r = Registry(db, "versions --json");
  ASSERT_EQ(r.rc, 0) << r.out;
  auto versions = nlohmann::json::parse(r.out);
  ASSERT_EQ(versions.size(), 2u);
  EXPECT_EQ(versions[1]["parent"], 1);
  EXPECT_EQ(versions[1]["intrinsics"].size(), 2u);
  ASSERT_EQ(Registry(db, "alias set stable ucmoh@2").rc, 0);
  const std::string out = Dir() + "/pulled";
  r = Registry(db, "pull ucmoh@stable -o " + out);
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_EQ(Registry(db, "verify").rc, 0);
  r = Registry(db, "eval ucmoh@stable --json");
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_EQ(nlohmann::json::parse(r.out)["pca"].size(), 2u);

  auto manifest = nlohmann::json::parse(std::ifstream(out + "/manifest.json"));
  EXPECT_EQ(manifest["registry_version"], 2);
  EXPECT_EQ(manifest["feature_schema"]["width"], ucmoh::kFeatureDim);

  // Scores: CostModel::Predict vs torch::jit::load(model.pt) in C++ and in Python.
  ScoredPrograms programs;
  ASSERT_NO_FATAL_FAILURE(ScoreWithTheRegistry(db, &programs));
  auto module = torch::jit::load(out + "/model.pt");
  auto scores = module.forward({programs.tokens, programs.valid}).toTensor().to(torch::kDouble).contiguous();
  ExpectScoresMatch(std::vector<double>(scores.data_ptr<double>(), scores.data_ptr<double>() + scores.numel()),
                    programs.expected, "C++ torch::jit");
  std::vector<double> py_scores;
  ASSERT_NO_FATAL_FAILURE(ScoreInPython(out + "/model.pt", programs, &py_scores));
  ExpectScoresMatch(py_scores, programs.expected, "python");
}

}  // namespace
