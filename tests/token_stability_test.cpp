// Same record, same tokens, on any machine. A record's tokens depend on the
// record alone (its program and the hardware it carries), never on the host
// that featurizes it. Checked three ways:
//   - a sample of the committed x86 records and of the imported CUTLASS rows
//     featurizes to the committed expected tokens (tests/fixtures/
//     expected_tokens.tsv); ctest runs this binary a second time under
//     `taskset -c 0`, a one-CPU affinity mask, where 2-thread programs must
//     still lower;
//   - an x86 plugin that believes it runs on a very different host (1 core,
//     other caches and clock, AVX2 only) gives bit-identical tokens;
//   - lowering refuses hardware the plugin cannot model.
// To regenerate the fixture after a deliberate feature schema change (with
// kFeatureSchemaVersion bumped): remove it, then run this binary once with
// UCMOH_UPDATE_EXPECTED_TOKENS=1 (each sample appends its lines:
// sha256(ProgramKey) TAB sha256(token bytes)).
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "ci_skip.h"
#include "../plugins/tensorcore/tensorcore_plugin.h"
#include "ucmoh/features.h"
#include "ucmoh/records_io.h"
#include "ucmoh/sha256.h"
#include "ucmoh/x86/x86_plugin.h"

namespace ucmoh {
namespace {

namespace fs = std::filesystem;

constexpr size_t kEvery = 97;  // sample stride: every 97th record of each file

const std::string kFixture = std::string(UCMOH_SOURCE_DIR) + "/tests/fixtures/expected_tokens.tsv";

std::string CutlassDir() {
  const char* env = std::getenv("UCMOH_DATA_DIR");
  return (env && *env ? std::string(env) : std::string(UCMOH_SOURCE_DIR) + "/../shared/data") + "/cutlass";
}

int64_t Threads(const Record& r) {
  auto threads = GetInt(r.schedule, "threads");
  return threads.ok() ? *threads : 1;
}

std::vector<Record> Sample(const std::vector<Record>& all) {
  std::vector<Record> out;
  for (size_t i = 0; i < all.size(); i += kEvery) out.push_back(all[i]);
  return out;
}

std::vector<Record> ReadX86Sample() {
  std::vector<Record> out;
  for (const char* name : {"avx2", "avx512", "vnni", "bf16"}) {
    auto records = ReadRecordsFile(std::string(UCMOH_SOURCE_DIR) + "/data/x86/x86." + name + ".jsonl.gz");
    EXPECT_TRUE(records.ok()) << records.status().message();
    if (!records.ok()) continue;
    std::vector<Record> plain;
    for (auto& r : *records) plain.push_back(std::move(r.record));
    for (Record& r : Sample(plain)) out.push_back(std::move(r));
  }
  return out;
}

// Read once for all tests of the binary.
const std::vector<Record>& X86Sample() {
  static const std::vector<Record> sample = ReadX86Sample();
  return sample;
}

std::vector<Record> CutlassSample(const TargetPlugin& plugin) {
  std::vector<Record> out;
  for (const char* file : {"resnet50_cutlass_profiler_result.csv", "resnet50_cutlass_profiler_result_int8.csv",
                           "resnet50_cutlass_profiler_result_fp16_fp32_accum.csv"}) {
    auto records = plugin.Import("cutlass", CutlassDir() + "/" + file);
    EXPECT_TRUE(records.ok()) << records.status().message();
    if (records.ok())
      for (Record& r : Sample(*records)) out.push_back(std::move(r));
  }
  return out;
}

Expected<TokenMatrix> Tokens(const TargetPlugin& plugin, const Record& r) {
  auto ast = plugin.Lower(r.task, r.intrinsic, r.schedule, r.hardware);
  if (!ast.ok()) return ast.status();
  for (const IntrinsicInfo& info : plugin.Intrinsics())
    if (info.name == r.intrinsic) return Featurize(*ast, r.hardware, info);
  return Status::NotFound(r.intrinsic);
}

// The token bytes as little-endian IEEE-754 (this is x86): equal hashes are
// bit-identical tokens.
std::string TokenHash(const TokenMatrix& m) {
  return Sha256Hex(m.values.data(), m.values.size() * sizeof(float));
}

std::map<std::string, std::string> ReadFixture() {
  std::map<std::string, std::string> expected;
  std::ifstream in(kFixture);
  std::string key, hash;
  while (std::getline(in, key, '\t') && std::getline(in, hash)) expected[key] = hash;
  return expected;
}

// Checks (or, with UCMOH_UPDATE_EXPECTED_TOKENS=1, records) one sample.
void CheckAgainstFixture(const TargetPlugin& plugin, const std::vector<Record>& sample) {
  static const bool update = std::getenv("UCMOH_UPDATE_EXPECTED_TOKENS") != nullptr;
  const auto expected = ReadFixture();
  std::ofstream out;
  if (update) out.open(kFixture, std::ios::app);
  int checked = 0;
  for (const Record& r : sample) {
    auto tokens = Tokens(plugin, r);
    ASSERT_TRUE(tokens.ok()) << r.task.key << ": " << tokens.status().message();
    const std::string key = Sha256Hex(ProgramKey(r));
    if (update) {
      out << key << '\t' << TokenHash(*tokens) << '\n';
      continue;
    }
    auto it = expected.find(key);
    ASSERT_NE(it, expected.end()) << "no expected tokens for " << r.task.key << " (regenerate the fixture)";
    EXPECT_EQ(it->second, TokenHash(*tokens)) << r.task.key << " " << CanonicalString(r.schedule);
    ++checked;
  }
  if (!update) {
    EXPECT_EQ(checked, static_cast<int>(sample.size()));
  }
}

TEST(TokenStability, SampleIsBigAndHasTwoThreadPrograms) {
  const auto sample = X86Sample();
  EXPECT_GE(sample.size(), 300u);
  int two_threads = 0;
  for (const Record& r : sample) two_threads += Threads(r) == 2;
  EXPECT_GE(two_threads, 50);
}

TEST(TokenStability, CommittedX86RecordsGiveTheExpectedTokens) {
  CheckAgainstFixture(x86::X86Plugin(), X86Sample());
}

TEST(TokenStability, ImportedCutlassRowsGiveTheExpectedTokens) {
  if (!fs::is_directory(CutlassDir())) UCMOH_SKIP_OR_FAIL_IN_CI("public CUTLASS data not found: " + CutlassDir());
  const tensorcore::TensorCorePlugin plugin;
  CheckAgainstFixture(plugin, CutlassSample(plugin));
}

HardwareParams SmallOtherHost() {
  HardwareParams hw;
  hw.model = "Some other x86-64 CPU @ 3.70GHz";
  hw.cores = 1;
  hw.vector_bytes = 32;
  hw.vector_registers = 16;
  hw.cache_line_bytes = 64;
  hw.l1_bytes = 32 * 1024;
  hw.l2_bytes = 512 * 1024;
  hw.l3_bytes = 16 * 1024 * 1024;
  hw.clock_ghz = 3.7;
  hw.flags = {"avx2", "fma"};
  return hw;
}

TEST(TokenStability, AnotherHostGivesBitIdenticalTokens) {
  const x86::X86Plugin here, elsewhere(SmallOtherHost());
  ASSERT_NE(here.Target().hardware, elsewhere.Target().hardware);
  int checked = 0;
  for (const Record& r : X86Sample()) {
    auto a = Tokens(here, r), b = Tokens(elsewhere, r);
    ASSERT_TRUE(a.ok() && b.ok()) << r.task.key;
    ASSERT_EQ(a->values.size(), b->values.size());
    ASSERT_EQ(std::memcmp(a->values.data(), b->values.data(), a->values.size() * sizeof(float)), 0) << r.task.key;
    ++checked;
  }
  EXPECT_GE(checked, 300);
}

TEST(TokenStability, LoweringReadsTheRecordsHardware) {
  const x86::X86Plugin plugin(SmallOtherHost());
  Record two_threads;
  for (const Record& r : X86Sample())
    if (Threads(r) == 2) two_threads = r;
  ASSERT_FALSE(two_threads.task.key.empty());
  EXPECT_TRUE(Tokens(plugin, two_threads).ok());  // 2 threads on the record's 2 cores
  Record one_core = two_threads;
  one_core.hardware.cores = 1;
  EXPECT_FALSE(Tokens(plugin, one_core).ok());   // but not on a 1-core record
  Record gpu = two_threads;
  gpu.hardware.is_gpu = true;
  EXPECT_NE(Tokens(plugin, gpu).status().message().find("is a GPU"), std::string::npos);
}

TEST(TokenStability, TensorcoreRefusesHardwareItDoesNotModel) {
  const tensorcore::TensorCorePlugin plugin;
  auto suite = plugin.Tasks("resnet50", "tensorcore.h16816");
  ASSERT_TRUE(suite.ok()) << suite.status().message();
  auto schedules = plugin.SampleSchedules(suite->front(), "tensorcore.h16816", 1, 1);
  ASSERT_TRUE(schedules.ok()) << schedules.status().message();
  HardwareParams cpu = SmallOtherHost();
  auto refused = plugin.Lower(suite->front(), "tensorcore.h16816", schedules->front(), cpu);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("models NVIDIA GPUs"), std::string::npos) << refused.status().message();
  HardwareParams volta = plugin.Target().hardware;
  volta.model = "Tesla V100";
  volta.flags = {"sm_70", "mma.sync"};
  refused = plugin.Lower(suite->front(), "tensorcore.h16816", schedules->front(), volta);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("does not know the limits of sm_70 ('Tesla V100')"), std::string::npos)
      << refused.status().message();
  EXPECT_TRUE(plugin.Lower(suite->front(), "tensorcore.h16816", schedules->front(), plugin.Target().hardware).ok());
}

}  // namespace
}  // namespace ucmoh
