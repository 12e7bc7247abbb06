// The committed x86 dataset (data/x86, docs/data.md) is what the model and the
// lifelong study are judged on, so its promises are tested: every supported
// intrinsic has at least 8,000 measured records over at least 40 tasks, each
// record carries a real latency and the provenance the protocol records, no
// program is measured twice, and `registry features` lowers every one of them
// to finite tokens.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "command_runner.h"
#include "ucmoh/records_io.h"

namespace ucmoh {
namespace {

const std::string kIntrinsics[] = {"x86.avx2", "x86.avx512", "x86.vnni", "x86.bf16"};

std::string DatasetFile(const std::string& intrinsic) {
  return std::string(UCMOH_SOURCE_DIR) + "/data/x86/" + intrinsic + ".jsonl.gz";
}

class X86Dataset : public ::testing::TestWithParam<std::string> {};

TEST_P(X86Dataset, HasEnoughWellFormedUniqueRecords) {
  auto records = ReadRecordsFile(DatasetFile(GetParam()));
  ASSERT_TRUE(records.ok()) << records.status().message();
  EXPECT_GE(records->size(), 8000u);
  std::map<std::string, int> per_task;
  std::set<std::string> programs;
  for (const auto& [line, r] : *records) {
    SCOPED_TRACE("line " + std::to_string(line));
    ASSERT_EQ(r.intrinsic, GetParam());
    ASSERT_EQ(r.provenance.kind, "measured");
    ASSERT_TRUE(std::isfinite(r.latency.median_s) && r.latency.median_s > 0);
    ASSERT_GE(r.latency.repeats, 5);
    for (const char* key : {"cpu_model", "cpu_flags", "compiler", "compile_flags", "date"}) {
      auto value = GetString(r.provenance.details, key);
      ASSERT_TRUE(value.ok() && !value->empty()) << key;
    }
    ASSERT_TRUE(GetInt(r.provenance.details, "cores_used").ok());
    // The machine it ran on (docs/records.md, "hardware"), not the one reading it.
    ASSERT_EQ(r.hardware.model, std::get<std::string>(r.provenance.details.at("cpu_model")));
    ASSERT_FALSE(r.hardware.is_gpu);
    ASSERT_EQ(r.hardware.cores, 2);
    ASSERT_GT(r.hardware.l1_bytes, 0);
    ASSERT_GT(r.hardware.l2_bytes, 0);
    ASSERT_GT(r.hardware.l3_bytes, 0);
    ASSERT_TRUE(programs.insert(ProgramKey(r)).second) << "program measured twice";
    ++per_task[r.task.key];
  }
  EXPECT_GE(per_task.size(), 40u);
}

TEST_P(X86Dataset, EveryRecordLowersToFiniteTokens) {
  const std::string command = std::string(UCMOH_BINARY_DIR) + "/bin/registry --plugins " + UCMOH_SOURCE_DIR +
                              "/plugins.json features --json " + DatasetFile(GetParam());
  const auto result = testing::RunCommand(command);
  ASSERT_EQ(result.rc, 0) << result.out;
  const auto report = nlohmann::json::parse(result.out)["intrinsics"][GetParam()];
  EXPECT_GE(report["records"].get<int64_t>(), 8000);
  EXPECT_EQ(report["failed"].get<int64_t>(), 0);
}

INSTANTIATE_TEST_SUITE_P(Committed, X86Dataset, ::testing::ValuesIn(kIntrinsics),
                         [](const auto& info) { return info.param.substr(4); });

}  // namespace
}  // namespace ucmoh
