// The C plugin ABI's fast path against direct C++ calls. Every record of the
// public data featurizes to the same tokens, bit for bit, three ways:
//   - through the plugin library loaded from plugins.json, the host
//     featurizing the plugin's C nodes where they lie (what users run);
//   - through the same library, the C nodes read back into a ProgramAst
//     (LowerRecord: what `features --show-ast` prints), then Featurize;
//   - through the same plugin class linked in (no C ABI at all).
// Each record is featurized twice, in a different order the second time, so
// the per-thread scratch the fast path keeps between programs cannot carry
// one program into the next.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "shared_data.h"
#include "tensorcore_plugin.h"
#include "ucmoh/features.h"
#include "ucmoh/plugin_loader.h"
#include "ucmoh/program_featurizer.h"
#include "ucmoh/records_io.h"
#include "ucmoh/x86/x86_plugin.h"

namespace {

using namespace ucmoh;

const PluginSet& Loaded() {
  static const PluginSet* set = [] {
    auto loaded = LoadPlugins(std::string(UCMOH_SOURCE_DIR) + "/plugins.json");
    EXPECT_TRUE(loaded.ok()) << loaded.status().message();
    return loaded.ok() ? new PluginSet(std::move(*loaded)) : nullptr;
  }();
  return *set;
}

const PluginSet& Linked() {
  static const PluginSet* set = [] {
    auto linked = PluginSet::InProcess(
        {std::make_shared<tensorcore::TensorCorePlugin>(), std::make_shared<x86::X86Plugin>()});
    EXPECT_TRUE(linked.ok()) << linked.status().message();
    return linked.ok() ? new PluginSet(std::move(*linked)) : nullptr;
  }();
  return *set;
}

std::vector<float> Tokens(const Expected<TokenMatrix>& m, const Record& r) {
  EXPECT_TRUE(m.ok()) << r.task.key << " " << r.intrinsic << ": " << m.status().message();
  return m.ok() ? m->values : std::vector<float>{};
}

std::vector<float> ThroughAstReader(const Record& r) {
  auto ast = LowerRecord(Loaded(), r);
  EXPECT_TRUE(ast.ok()) << ast.status().message();
  if (!ast.ok()) return {};
  return Tokens(Featurize(*ast, r.hardware, *Loaded().Intrinsic(r.intrinsic)), r);
}

void ExpectSameTokensThreeWays(const std::vector<Record>& records) {
  ASSERT_FALSE(records.empty());
  std::vector<std::vector<float>> fast;
  for (const Record& r : records) fast.push_back(Tokens(FeaturizeRecord(Loaded(), r), r));
  size_t differing = 0;
  for (size_t i = records.size(); i-- > 0;) {  // the other way round: other scratch contents
    const Record& r = records[i];
    const std::vector<float> again = Tokens(FeaturizeRecord(Loaded(), r), r);
    const std::vector<float> linked = Tokens(FeaturizeRecord(Linked(), r), r);
    const std::vector<float> read_back = ThroughAstReader(r);
    ASSERT_FALSE(fast[i].empty()) << r.task.key;
    const bool same = fast[i] == again && fast[i] == linked && fast[i] == read_back;
    if (!same && ++differing <= 3) ADD_FAILURE() << "record " << i << " (" << r.task.key << ", " << r.intrinsic
                                                 << ") featurizes differently through the C ABI";
  }
  EXPECT_EQ(differing, 0u) << "of " << records.size() << " records";
}

TEST(CAbiFeaturization, TensorCoreRecordsMatchDirectCalls) {
  UCMOH_SKIP_WITHOUT_SHARED_DATA();
  std::vector<Record> records;
  for (const char* name : {"resnet50_cutlass_profiler_result.csv", "resnet50_cutlass_profiler_result_fp16_fp32_accum.csv"}) {
    auto imported = Loaded().ForTarget("tensorcore")->plugin->Import("cutlass", ucmoh::testing::CutlassDataDir() + "/" + name);
    ASSERT_TRUE(imported.ok()) << imported.status().message();
    records.insert(records.end(), imported->begin(), imported->end());
  }
  ExpectSameTokensThreeWays(records);
}

TEST(CAbiFeaturization, X86RecordsMatchDirectCalls) {
  std::vector<Record> records;
  for (const char* name : {"avx2", "avx512", "vnni", "bf16"}) {
    auto read = ReadRecordsFile(std::string(UCMOH_SOURCE_DIR) + "/data/x86/x86." + name + ".jsonl.gz");
    ASSERT_TRUE(read.ok()) << read.status().message();
    for (size_t i = 0; i < read->size(); i += 7) records.push_back((*read)[i].record);  // every 7th: all tasks
  }
  ExpectSameTokensThreeWays(records);
}

}  // namespace
