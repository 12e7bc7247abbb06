// Schema versions: an older registry is read (read-only) or upgraded (read-
// write); a newer one, or a value in a newer class format, is refused with a
// message naming both versions.
#include <gtest/gtest.h>

#include "registry_test_support.h"
#include "ucmoh/registry/registry_store.h"

namespace ucmoh::registry {
namespace {

using testing::RawDb;
using testing::SampleRecord;
using testing::TempDir;

// A registry with records, rewritten to look as schema 1 wrote it: no
// record counters.
std::string MakeSchema1Registry(const TempDir& dir) {
  const std::string path = dir.Sub("r.db");
  {
    auto store = RegistryStore::Open(path, OpenMode::kCreate);
    EXPECT_TRUE(store.ok());
    EXPECT_TRUE((*store)->AddRecords({SampleRecord("x86.vnni", 1), SampleRecord("x86.vnni", 2),
                                      SampleRecord("arm.sdot", 3)}).ok());
  }
  RawDb raw(path);
  EXPECT_TRUE(raw.ok()) << raw.error();
  EXPECT_TRUE(raw.Put("metadata", "schema_version", "1").ok());
  EXPECT_TRUE(raw.Delete("metadata", "record_count/x86.vnni").ok());
  EXPECT_TRUE(raw.Delete("metadata", "record_count/arm.sdot").ok());
  return path;
}

TEST(RegistrySchema, OlderIsReadWhenReadOnly) {
  TempDir dir("schema1_ro");
  const std::string path = MakeSchema1Registry(dir);
  auto store = RegistryStore::Open(path, OpenMode::kReadOnly);
  ASSERT_TRUE(store.ok()) << store.status().message();
  EXPECT_EQ((*store)->schema_version(), 1);
  EXPECT_EQ(*(*store)->CountRecords("x86.vnni"), 2);
  EXPECT_EQ((*store)->ReadRecords("arm.sdot")->size(), 1u);
  EXPECT_TRUE((*store)->Verify()->empty());
}

TEST(RegistrySchema, OlderIsUpgradedWhenWritable) {
  TempDir dir("schema1_rw");
  const std::string path = MakeSchema1Registry(dir);
  {
    auto store = RegistryStore::Open(path, OpenMode::kReadWrite);
    ASSERT_TRUE(store.ok()) << store.status().message();
    EXPECT_EQ((*store)->schema_version(), RegistryStore::kSchemaVersion);
    auto events = (*store)->ListEvents();
    ASSERT_TRUE(events.ok());
    ASSERT_GE(events->size(), 2u);
    EXPECT_EQ(events->back().kind, "schema_upgrade");
    EXPECT_EQ((*events)[events->size() - 2].detail, "1 -> 2");
    EXPECT_EQ(events->back().detail, "2 -> 3");
  }
  RawDb raw(path);
  ASSERT_TRUE(raw.ok());
  EXPECT_EQ(raw.Get("metadata", "schema_version"), "3");
  EXPECT_EQ(raw.Get("metadata", "record_count/x86.vnni"), "2");
  EXPECT_EQ(raw.Get("metadata", "record_count/arm.sdot"), "1");
}

void ExpectRefused(const std::string& path, OpenMode mode, const std::string& stored) {
  auto store = RegistryStore::Open(path, mode);
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), Status::Code::kUnsupported);
  const std::string& m = store.status().message();
  EXPECT_NE(m.find("schema version " + stored), std::string::npos) << m;
  EXPECT_NE(m.find(std::to_string(stored == "0" ? RegistryStore::kOldestReadableSchema
                                                : RegistryStore::kSchemaVersion)),
            std::string::npos)
      << m;
}

// Schema 3 needs every record to name its hardware; nothing can supply it, so a
// schema-2 registry holding a record without it is refused, not upgraded.
TEST(RegistrySchema, RecordsWithoutHardwareAreNotUpgraded) {
  TempDir dir("schema2_no_hw");
  const std::string path = MakeSchema1Registry(dir);
  {
    RawDb raw(path);
    ASSERT_TRUE(raw.Put("metadata", "schema_version", "2").ok());
    const std::string old_line =
        R"({"target":"x86","intrinsic":"x86.avx2","task":{"key":"t","op":"gemm","workload":{}},)"
        R"("schedule":{},"latency":{"median_s":1},"provenance":{"kind":"measured","source":"h"}})";
    ASSERT_TRUE(raw.Put("records", std::string("x86.avx2") + '\0' + "old", old_line).ok());
  }
  auto store = RegistryStore::Open(path, OpenMode::kReadWrite);
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), Status::Code::kUnsupported);
  EXPECT_NE(store.status().message().find("without their hardware"), std::string::npos) << store.status().message();
  RawDb raw(path);
  EXPECT_EQ(raw.Get("metadata", "schema_version"), "2");  // left as it was
}

TEST(RegistrySchema, NewerIsRefusedNamingBothVersions) {
  TempDir dir("schema_new");
  const std::string path = dir.Sub("r.db");
  ASSERT_TRUE(RegistryStore::Open(path, OpenMode::kCreate).ok());
  const std::string newer = std::to_string(RegistryStore::kSchemaVersion + 1);
  {
    RawDb raw(path);
    ASSERT_TRUE(raw.Put("metadata", "schema_version", newer).ok());
  }
  ExpectRefused(path, OpenMode::kReadWrite, newer);
  ExpectRefused(path, OpenMode::kReadOnly, newer);
  {
    RawDb raw(path);
    ASSERT_TRUE(raw.Put("metadata", "schema_version", "0").ok());
  }
  ExpectRefused(path, OpenMode::kReadWrite, "0");
}

TEST(RegistrySchema, NewerClassFormatIsRefused) {
  TempDir dir("class_new");
  const std::string path = dir.Sub("r.db");
  std::mt19937_64 rng(8);
  {
    auto store = RegistryStore::Open(path, OpenMode::kCreate);
    ASSERT_TRUE(store.ok());
    ASSERT_TRUE((*store)->CommitVersion(testing::SampleCommit(&rng, 0, 100, "x86.vnni")).ok());
  }
  {
    // A cereal portable archive starts with one endianness byte, then the
    // class version (uint32, little-endian) of the first versioned class.
    RawDb raw(path);
    const std::string key = std::string(7, '\0') + "\x01";
    std::string value = raw.Get("versions", key);
    ASSERT_GT(value.size(), 5u);
    ASSERT_EQ(value[1], 3);  // ModelVersion's class version (3: rehearsal keys)
    value[1] = 9;
    ASSERT_TRUE(raw.Put("versions", key, value).ok());
  }
  auto store = RegistryStore::Open(path, OpenMode::kReadOnly);
  ASSERT_TRUE(store.ok());
  auto v = (*store)->GetVersion(1);
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().code(), Status::Code::kUnsupported);
  EXPECT_NE(v.status().message().find("format version 9"), std::string::npos) << v.status().message();
  EXPECT_NE(v.status().message().find("newer tool"), std::string::npos);
}

}  // namespace
}  // namespace ucmoh::registry
