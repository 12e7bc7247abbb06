#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "ucmoh/records_io.h"

namespace ucmoh {
namespace {

Record SampleRecord() {
  Record r;
  r.target = "x86";
  r.intrinsic = "x86.avx512";
  r.task = {"bert.dense.m128_n768_k768.avx512", "gemm",
            {{"m", int64_t{128}}, {"n", int64_t{768}}, {"k", int64_t{768}}, {"in_type", std::string("f32")}}};
  r.schedule = {{"mr", int64_t{6}}, {"nr_vec", int64_t{2}}, {"pack", std::string("ab")}};
  r.latency = {1.25e-3, 1.3e-3, 1.2e-3, 0.012, 7};
  r.provenance = {"measured", "host", {{"cpu_model", std::string("Xeon")}, {"cores_used", int64_t{2}}}};
  r.hardware.model = "Xeon";
  r.hardware.cores = 2;
  r.hardware.l2_bytes = 2 * 1024 * 1024;
  r.hardware.clock_ghz = 2.1;
  r.hardware.flags = {"avx2", "fma", "avx512f"};
  return r;
}

std::string TempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() / (name + std::to_string(::getpid()))).string();
}

TEST(RecordsIo, JsonLineRoundTrip) {
  Record r = SampleRecord();
  auto back = RecordFromJsonLine(RecordToJsonLine(r));
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(RecordToJsonLine(*back), RecordToJsonLine(r));
  EXPECT_EQ(ProgramKey(*back), ProgramKey(r));
  EXPECT_EQ(back->latency.repeats, 7);
  EXPECT_DOUBLE_EQ(back->latency.median_s, 1.25e-3);
}

TEST(RecordsIo, ErrorsNameTheKey) {
  auto bad_latency = RecordFromJsonLine(
      R"({"target":"x86","intrinsic":"x86.avx2","task":{"key":"t","op":"gemm","workload":{}},)"
      R"("schedule":{},"latency":{"median_s":-1},"provenance":{"kind":"measured","source":"h"}})");
  ASSERT_FALSE(bad_latency.ok());
  EXPECT_NE(bad_latency.status().message().find("latency.median_s"), std::string::npos);
  auto wrong_target = RecordFromJsonLine(
      R"({"target":"arm","intrinsic":"x86.avx2","task":{"key":"t","op":"gemm","workload":{}},)"
      R"("schedule":{},"latency":{"median_s":1},"provenance":{"kind":"measured","source":"h"}})");
  ASSERT_FALSE(wrong_target.ok());
  EXPECT_NE(wrong_target.status().message().find("does not belong"), std::string::npos);
  EXPECT_FALSE(RecordFromJsonLine("{not json").ok());
  // Found by fuzz_records_text: a count this large used to be cast to int64
  // (undefined behaviour); now it is refused by name.
  auto huge_repeats = RecordFromJsonLine(
      R"({"target":"x86","intrinsic":"x86.avx2","task":{"key":"t","op":"gemm","workload":{}},)"
      R"("schedule":{},"latency":{"median_s":1,"repeats":1.89223e+20},"provenance":{"kind":"measured","source":"h"}})");
  ASSERT_FALSE(huge_repeats.ok());
  EXPECT_NE(huge_repeats.status().message().find("latency.repeats"), std::string::npos);
}

TEST(RecordsIo, HardwareRoundTripsAndIsPartOfTheProgramKey) {
  Record r = SampleRecord();
  auto back = RecordFromJsonLine(RecordToJsonLine(r));
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_TRUE(back->hardware == r.hardware);
  Record elsewhere = r;
  elsewhere.hardware.l3_bytes = 32.0 * 1024 * 1024;
  EXPECT_NE(ProgramKey(elsewhere), ProgramKey(r));  // same program, another machine: another record
}

// HardwareKey reuses the last key a thread built while the hardware is the
// same: interleaved machines, and fields that compare equal but print
// differently (0.0 and -0.0), must still get their own keys.
TEST(RecordsIo, HardwareKeyFollowsEveryChangeOfHardware) {
  const HardwareParams a = SampleRecord().hardware;
  HardwareParams b = a;
  b.clock_ghz += 0.1;
  HardwareParams c = a;
  c.flags.push_back("avx512_fp16");
  HardwareParams zero = a, negative_zero = a;
  zero.warp_size = 0.0;
  negative_zero.warp_size = -0.0;
  const std::string key_a = HardwareKey(a);
  EXPECT_NE(HardwareKey(b), key_a);
  EXPECT_EQ(HardwareKey(a), key_a);
  EXPECT_NE(HardwareKey(c), key_a);
  EXPECT_EQ(HardwareKey(a), key_a);
  EXPECT_NE(HardwareKey(zero), HardwareKey(negative_zero));
  EXPECT_NE(HardwareKey(negative_zero), HardwareKey(zero));
  EXPECT_NE(key_a.find(a.model), std::string::npos);
}

TEST(RecordsIo, RecordsWithoutHardwareAreRefusedWithTheMigrationHint) {
  const std::string old_line =
      R"({"target":"x86","intrinsic":"x86.avx2","task":{"key":"t","op":"gemm","workload":{}},)"
      R"("schedule":{},"latency":{"median_s":1},"provenance":{"kind":"measured","source":"h"}})";
  auto old_record = RecordFromJsonLine(old_line);
  ASSERT_FALSE(old_record.ok());
  EXPECT_NE(old_record.status().message().find("missing 'hardware'"), std::string::npos);
  EXPECT_NE(old_record.status().message().find("Migration"), std::string::npos);
  std::string bad = old_line;
  bad.insert(bad.size() - 1, R"(,"hardware":{"model":"m","is_gpu":false,"l2_bytes":-3})");
  auto negative = RecordFromJsonLine(bad);
  ASSERT_FALSE(negative.ok());
  EXPECT_NE(negative.status().message().find("hardware.l2_bytes"), std::string::npos);
}

TEST(RecordsIo, FileReadReportsTheLineNumber) {
  const std::string path = TempPath("records_bad_");
  {
    std::ofstream out(path);
    out << RecordToJsonLine(SampleRecord()) << "\n\n" << "{\"target\": 3}\n";
  }
  auto records = ReadRecordsFile(path);
  ASSERT_FALSE(records.ok());
  EXPECT_NE(records.status().message().find(path + ":3:"), std::string::npos)
      << records.status().message();
  std::filesystem::remove(path);
}

TEST(RecordsIo, TextParseSkipsBlankLinesAndNamesTheBadOne) {
  const std::string line = RecordToJsonLine(SampleRecord());
  auto two = ParseRecordsText(line + "\n\n" + line);  // no newline after the last
  ASSERT_TRUE(two.ok()) << two.status().message();
  ASSERT_EQ(two->size(), 2u);
  EXPECT_EQ(RecordToJsonLine((*two)[1]), line);
  auto bad = ParseRecordsText(line + "\n\n{\"target\": 3}\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message().rfind("line 3: ", 0), 0u) << bad.status().message();
}

TEST(RecordsIo, WriteIsAtomicAndAppendAddsWholeLines) {
  const std::string path = TempPath("records_ok_");
  ASSERT_TRUE(WriteRecordsFile(path, {SampleRecord()}).ok());
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
  ASSERT_TRUE(AppendRecords(path, {SampleRecord(), SampleRecord()}).ok());
  auto records = ReadRecordsFile(path);
  ASSERT_TRUE(records.ok()) << records.status().message();
  ASSERT_EQ(records->size(), 3u);
  EXPECT_EQ((*records)[2].line, 3);
  std::filesystem::remove(path);
}

TEST(RecordsIo, ReadsGzipCompressedFiles) {
  const std::string path = TempPath("records_gz_") + ".jsonl";
  ASSERT_TRUE(WriteRecordsFile(path, {SampleRecord(), SampleRecord()}).ok());
  ASSERT_EQ(std::system(("gzip -f " + path).c_str()), 0);
  auto records = ReadRecordsFile(path + ".gz");
  ASSERT_TRUE(records.ok()) << records.status().message();
  EXPECT_EQ(records->size(), 2u);
  EXPECT_EQ(RecordToJsonLine((*records)[1].record), RecordToJsonLine(SampleRecord()));
  std::filesystem::remove(path + ".gz");
}

}  // namespace
}  // namespace ucmoh
