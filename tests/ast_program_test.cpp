// Programs as ASTs (docs/ast-json.md): for every intrinsic of every plugin,
// a record and its AST form give bit-identical tokens and scores; the
// project's measured x86 records too; and every kind of bad AST gives one
// error naming the JSON path of the first bad field.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>

#include "ucmoh/ast_program.h"
#include "ucmoh/cost_model.h"
#include "ucmoh/program_featurizer.h"
#include "ucmoh/records_io.h"

namespace ucmoh {
namespace {

using ::testing::HasSubstr;

const PluginSet& Plugins() {
  static const PluginSet plugins = [] {
    auto loaded = LoadPlugins(std::string(UCMOH_SOURCE_DIR) + "/plugins.json");
    if (!loaded.ok()) throw std::runtime_error(loaded.status().message());
    return std::move(*loaded);
  }();
  return plugins;
}

// A few sampled programs of each of an intrinsic's suite tasks, on its
// plugin's own hardware (no measured data needed, so every intrinsic is covered).
std::vector<Record> SampledRecords(const LoadedPlugin& plugin, const std::string& intrinsic) {
  std::vector<Record> records;
  for (const auto& suite : plugin.plugin->TaskSuites()) {
    auto tasks = plugin.plugin->Tasks(suite, intrinsic);
    if (!tasks.ok()) continue;
    for (size_t t = 0; t < tasks->size() && t < 3; ++t) {
      auto schedules = plugin.plugin->SampleSchedules((*tasks)[t], intrinsic, 6, 7);
      if (!schedules.ok()) continue;
      for (const auto& s : *schedules) {
        Record r;
        r.target = plugin.target.name;
        r.intrinsic = intrinsic;
        r.task = (*tasks)[t];
        r.schedule = s;
        r.hardware = plugin.target.hardware;
        r.latency.median_s = 1e-3 * static_cast<double>(records.size() + 1);
        records.push_back(std::move(r));
      }
    }
  }
  return records;
}

// Records -> JSON text -> parsed programs; the same tokens, bit for bit, and
// the same scores from one model.
void ExpectSameTokens(const std::vector<Record>& records, const std::string& what) {
  std::string text;
  for (const auto& r : records) {
    auto p = RecordAsAstProgram(Plugins(), r);
    ASSERT_TRUE(p.ok()) << what << ": " << p.status().message();
    text += AstProgramToJson(*p).dump() + "\n";
  }
  auto programs = ParseAstPrograms(text, Plugins());
  ASSERT_TRUE(programs.ok()) << what << ": " << programs.status().message();
  ASSERT_EQ(programs->size(), records.size());
  for (size_t i = 0; i < records.size(); ++i) {
    auto want = FeaturizeRecord(Plugins(), records[i]);
    auto got = FeaturizeAstProgram(Plugins(), (*programs)[i]);
    ASSERT_TRUE(want.ok() && got.ok()) << what;
    ASSERT_EQ(want->num_tokens, got->num_tokens) << what << " program " << i;
    ASSERT_EQ(0, std::memcmp(want->values.data(), got->values.data(), want->values.size() * sizeof(float)))
        << what << " program " << i << ": tokens differ";
    EXPECT_EQ((*programs)[i].task, records[i].task.key);
  }
  auto from_ast = AstProgramSet(Plugins(), *programs);
  auto from_records = BuildProgramSet(Plugins(), records);
  ASSERT_TRUE(from_ast.ok() && from_records.ok()) << what;
  NetworkConfig config;
  config.seed = 3;
  auto model = CostModel::Create(config);
  ASSERT_TRUE(model.ok());
  model->FitNormalizer(*from_records);
  auto a = model->Predict(*from_ast), b = model->Predict(*from_records);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(*a, *b) << what << ": scores differ";
  EXPECT_EQ(from_ast->latency_s, from_records->latency_s) << what;
}

TEST(AstProgram, EveryIntrinsicGivesTheSameTokensAndScoresAsItsRecords) {
  int covered = 0;
  for (const auto& plugin : Plugins().plugins())
    for (const auto& info : plugin.intrinsics) {
      auto records = SampledRecords(plugin, info.name);
      ASSERT_FALSE(records.empty()) << info.name << ": no sampled programs";
      ExpectSameTokens(records, info.name);
      ++covered;
    }
  EXPECT_GE(covered, 10);
}

TEST(AstProgram, MeasuredX86RecordsGiveTheSameTokensAndScores) {
  std::vector<Record> records;
  for (const char* name : {"avx2", "avx512", "vnni", "bf16"}) {
    auto read = ReadRecordsFile(std::string(UCMOH_SOURCE_DIR) + "/data/x86/x86." + name + ".jsonl.gz");
    ASSERT_TRUE(read.ok()) << read.status().message();
    for (size_t i = 0; i < read->size() && i < 60; ++i) records.push_back((*read)[i].record);
  }
  ExpectSameTokens(records, "data/x86");
}

// A measured AST program stored as a record (Record::ast, as `registry import
// ast / metaschedule` writes them) survives the records file format and
// featurizes to the tokens of the program it came from; its ProgramKey tells
// it apart from the plugin-lowered record with the same schedule.
TEST(AstProgram, MeasuredProgramsBecomeRecordsWithTheSameTokens) {
  auto read = ReadRecordsFile(std::string(UCMOH_SOURCE_DIR) + "/data/x86/x86.avx2.jsonl.gz");
  ASSERT_TRUE(read.ok()) << read.status().message();
  for (size_t i = 0; i < 40; ++i) {
    const Record& original = (*read)[i].record;
    auto program = RecordAsAstProgram(Plugins(), original);
    ASSERT_TRUE(program.ok()) << program.status().message();
    auto record = AstProgramAsRecord(Plugins(), *program, {"imported", "test", {}});
    ASSERT_TRUE(record.ok()) << record.status().message();
    auto back = RecordFromJsonLine(RecordToJsonLine(*record));
    ASSERT_TRUE(back.ok()) << back.status().message();
    EXPECT_EQ(back->ast, record->ast);
    EXPECT_EQ(back->task.key, original.task.key);
    EXPECT_EQ(back->latency.median_s, original.latency.median_s);
    EXPECT_NE(ProgramKey(*back), ProgramKey(original));
    auto want = FeaturizeRecord(Plugins(), original);
    auto got = FeaturizeRecord(Plugins(), *back);
    ASSERT_TRUE(want.ok() && got.ok()) << (got.ok() ? "" : got.status().message());
    ASSERT_EQ(want->values, got->values) << "record " << i;
  }
}

TEST(AstProgram, RecordsRefuseABadOrForeignAst) {
  auto read = ReadRecordsFile(std::string(UCMOH_SOURCE_DIR) + "/data/x86/x86.avx2.jsonl.gz");
  ASSERT_TRUE(read.ok());
  auto program = RecordAsAstProgram(Plugins(), (*read)[0].record);
  ASSERT_TRUE(program.ok());
  program->latency_s = 0;
  auto unmeasured = AstProgramAsRecord(Plugins(), *program, {"imported", "test", {}});
  ASSERT_FALSE(unmeasured.ok());
  EXPECT_THAT(unmeasured.status().message(), HasSubstr("latency_s"));
  program->latency_s = 1e-3;
  auto record = AstProgramAsRecord(Plugins(), *program, {"imported", "test", {}});
  ASSERT_TRUE(record.ok());
  auto j = nlohmann::json::parse(RecordToJsonLine(*record));
  j["ast"] = "not an object";
  auto parsed = RecordFromJsonLine(j.dump());
  ASSERT_FALSE(parsed.ok());
  EXPECT_THAT(parsed.status().message(), HasSubstr("'ast' must be a JSON object"));
  Record wrong = *record;
  wrong.intrinsic = "x86.avx512";
  auto lowered = LowerRecord(Plugins(), wrong);
  ASSERT_FALSE(lowered.ok());
  EXPECT_THAT(lowered.status().message(), HasSubstr("$.ast.intrinsic"));
  auto body = nlohmann::json::parse(record->ast);
  body["body"][0]["loop"]["extent"] = 0;
  wrong = *record;
  wrong.ast = body.dump();
  lowered = LowerRecord(Plugins(), wrong);
  ASSERT_FALSE(lowered.ok());
  EXPECT_THAT(lowered.status().message(), HasSubstr("$.ast.body[0].loop.extent"));
}

// One valid program to break, field by field.
nlohmann::json ValidProgram() {
  static const nlohmann::json valid = [] {
    auto read = ReadRecordsFile(std::string(UCMOH_SOURCE_DIR) + "/data/x86/x86.avx2.jsonl.gz");
    EXPECT_TRUE(read.ok());
    return AstProgramToJson(*RecordAsAstProgram(Plugins(), read->front().record));
  }();
  return valid;
}

std::string ErrorOf(const nlohmann::json& j) {
  auto p = ParseAstProgram(j.dump(), Plugins());
  EXPECT_FALSE(p.ok()) << j.dump().substr(0, 200);
  return p.ok() ? "" : p.status().message();
}

TEST(AstProgram, ValidProgramParses) {
  auto p = ParseAstProgram(ValidProgram().dump(), Plugins());
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->intrinsic, "x86.avx2");
}

TEST(AstProgram, MissingFieldNamesItsPath) {
  auto j = ValidProgram();
  j["body"][0]["body"][0]["loop"].erase("extent");
  EXPECT_EQ(ErrorOf(j), "$.body[0].body[0].loop.extent: missing");
  auto k = ValidProgram();
  k["template_inputs"].erase("k_unroll");
  EXPECT_EQ(ErrorOf(k), "$.template_inputs.k_unroll: missing");
}

TEST(AstProgram, UnknownIntrinsicIsNamedWhereItIsCalled) {
  auto j = ValidProgram();
  j.erase("intrinsic");
  std::string text = j.dump();
  const std::string from = "\"intrinsic\":\"x86.avx2\"";
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from))
    text.replace(at, from.size(), "\"intrinsic\":\"x86.avx1024\"");
  const std::string error = ErrorOf(nlohmann::json::parse(text));
  EXPECT_THAT(error, HasSubstr(".stage.intrinsic: unknown intrinsic 'x86.avx1024' (loaded: "));
  EXPECT_THAT(error, ::testing::StartsWith("$.body[0]"));
}

TEST(AstProgram, LoopExtentZeroIsRefused) {
  auto j = ValidProgram();
  j["body"][0]["loop"]["extent"] = 0;
  EXPECT_EQ(ErrorOf(j), "$.body[0].loop.extent: must be an integer >= 1");
}

TEST(AstProgram, UnknownScopeListsTheKnownOnes) {
  auto j = ValidProgram();
  j["buffers"][1]["scope"] = "texture";
  EXPECT_EQ(ErrorOf(j), "$.buffers[1].scope: unknown scope 'texture' (known: global, shared, cache, register)");
}

TEST(AstProgram, OtherMistakesAreNamedToo) {
  auto typo = ValidProgram();
  typo["bufers"] = typo["buffers"];
  EXPECT_EQ(ErrorOf(typo), "$.bufers: unknown field");
  auto undeclared = ValidProgram();
  undeclared["buffers"].erase(0);
  EXPECT_THAT(ErrorOf(undeclared), HasSubstr(".stage.buffer: unknown buffer 'A' (declare it in $.buffers)"));
  auto kind = ValidProgram();
  kind["body"][0]["loop"]["kind"] = "threaded";
  EXPECT_THAT(ErrorOf(kind), ::testing::StartsWith("$.body[0].loop.kind: unknown loop kind 'threaded' (known: serial,"));
  auto dtype = ValidProgram();
  dtype["buffers"][0]["dtype"] = "f8";
  EXPECT_THAT(ErrorOf(dtype), ::testing::StartsWith("$.buffers[0].dtype: unknown dtype 'f8'"));
  auto extra_input = ValidProgram();
  extra_input["template_inputs"]["warp_tile_m"] = 2;
  EXPECT_EQ(ErrorOf(extra_input), "$.template_inputs.warp_tile_m: not an input of this intrinsic's plugin");
}

// The first load stage of a program's JSON, and how many loops enclose it.
nlohmann::json* FirstLoad(nlohmann::json& nodes, int depth, int* out_depth) {
  for (auto& node : nodes) {
    if (node.contains("stage") && node["stage"]["kind"] == "load") {
      *out_depth = depth;
      return &node["stage"];
    }
    if (node.contains("body"))
      if (auto* found = FirstLoad(node["body"], depth + 1, out_depth)) return found;
  }
  return nullptr;
}

TEST(AstProgram, LoopStridesHaveOneValuePerEnclosingLoop) {
  auto j = ValidProgram();
  int depth = 0;
  nlohmann::json* load = FirstLoad(j["body"], 0, &depth);
  ASSERT_NE(load, nullptr);
  ASSERT_GT(depth, 1);
  (*load)["loop_stride_bytes"] = std::vector<double>(depth, 64.0);
  auto parsed = ParseAstProgram(j.dump(), Plugins());
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  auto again = AstProgramToJson(*parsed);
  int depth_again = 0;
  EXPECT_EQ((*FirstLoad(again["body"], 0, &depth_again))["loop_stride_bytes"], (*load)["loop_stride_bytes"]);
  (*load)["loop_stride_bytes"] = std::vector<double>(depth - 1, 64.0);
  EXPECT_THAT(ErrorOf(j), HasSubstr(".stage.loop_stride_bytes: " + std::to_string(depth - 1) + " values for " +
                                    std::to_string(depth) + " enclosing loops"));
  (*load)["loop_stride_bytes"] = std::vector<double>(depth, -1.0);
  EXPECT_THAT(ErrorOf(j), HasSubstr(".stage.loop_stride_bytes: [0] must be a finite number >= 0"));
}

TEST(AstProgram, ArrayAndLinesNameTheProgram) {
  auto bad = ValidProgram();
  bad["body"][0]["loop"]["extent"] = -2;
  const std::string array = "[" + ValidProgram().dump() + "," + bad.dump() + "]";
  auto a = ParseAstPrograms(array, Plugins());
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.status().message(), "$[1].body[0].loop.extent: must be an integer >= 1");
  auto l = ParseAstPrograms(ValidProgram().dump() + "\n" + bad.dump() + "\n", Plugins());
  ASSERT_FALSE(l.ok());
  EXPECT_EQ(l.status().message(), "line 2: $.body[0].loop.extent: must be an integer >= 1");
  auto broken = ParseAstPrograms("{\"body\": [", Plugins());
  ASSERT_FALSE(broken.ok());
  EXPECT_THAT(broken.status().message(), ::testing::StartsWith("line 1: not valid JSON ("));
}

}  // namespace
}  // namespace ucmoh
