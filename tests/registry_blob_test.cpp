// Blobs: dedup, and damage reported by reads and by Verify, whether the bytes
// under a key were replaced or the blob file itself was edited.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "registry_test_support.h"
#include "ucmoh/registry/registry_store.h"
#include "ucmoh/sha256.h"

namespace ucmoh::registry {
namespace {

namespace fs = std::filesystem;
using testing::RawDb;
using testing::TempDir;

bool AnyProblemMentions(const std::vector<std::string>& problems, const std::string& what) {
  for (const auto& p : problems)
    if (p.find(what) != std::string::npos) return true;
  return false;
}

TEST(RegistryBlobs, PutGetDedup) {
  TempDir dir("blobs");
  auto store = RegistryStore::Open(dir.Sub("r.db"), OpenMode::kCreate);
  ASSERT_TRUE(store.ok());
  const std::string bytes(100000, 'w');
  auto sha = (*store)->PutBlob(bytes);
  ASSERT_TRUE(sha.ok());
  EXPECT_EQ(*sha, Sha256Hex(bytes));
  EXPECT_EQ(*(*store)->PutBlob(bytes), *sha);
  EXPECT_EQ(*(*store)->GetBlob(*sha), bytes);
  EXPECT_EQ((*store)->GetBlob(Sha256Hex("other")).status().code(), Status::Code::kNotFound);
  EXPECT_EQ((*store)->GetBlob("not-a-sha").status().code(), Status::Code::kInvalidArgument);
}

TEST(RegistryBlobs, ReplacedBytesAreRefused) {
  TempDir dir("blob_replace");
  const std::string path = dir.Sub("r.db");
  std::mt19937_64 rng(5);
  std::string sha;
  {
    auto store = RegistryStore::Open(path, OpenMode::kCreate);
    ASSERT_TRUE(store.ok());
    auto v = (*store)->CommitVersion(testing::SampleCommit(&rng, 1, 4000, "x86.vnni"));
    ASSERT_TRUE(v.ok());
    sha = v->weights_sha256;
  }
  {
    RawDb raw(path);
    ASSERT_TRUE(raw.ok()) << raw.error();
    ASSERT_TRUE(raw.Put("blobs", sha, "tampered weights").ok());
  }
  auto store = RegistryStore::Open(path, OpenMode::kReadOnly);
  ASSERT_TRUE(store.ok()) << store.status().message();
  auto read = (*store)->GetBlob(sha);
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.status().code(), Status::Code::kCorruption);
  EXPECT_NE(read.status().message().find("sha256"), std::string::npos);
  auto problems = (*store)->Verify();
  ASSERT_TRUE(problems.ok());
  EXPECT_TRUE(AnyProblemMentions(*problems, sha)) << ::testing::PrintToString(*problems);
}

// Flips one byte inside the blob's bytes in whichever blob file holds them.
bool DamageBlobFile(const std::string& dir, const std::string& needle) {
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".blob") continue;
    std::fstream f(entry.path(), std::ios::in | std::ios::out | std::ios::binary);
    std::string data((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    const size_t at = data.find(needle);
    if (at == std::string::npos) continue;
    f.clear();
    f.seekp(static_cast<std::streamoff>(at + needle.size() / 2));
    f.put(static_cast<char>(data[at + needle.size() / 2] ^ 0x5a));
    return true;
  }
  return false;
}

TEST(RegistryBlobs, DamagedBlobFileIsReported) {
  TempDir dir("blob_file");
  const std::string path = dir.Sub("r.db");
  std::mt19937_64 rng(6);
  VersionCommit commit = testing::SampleCommit(&rng, 1, 8000, "x86.vnni");
  ModelVersion v;
  {
    auto store = RegistryStore::Open(path, OpenMode::kCreate);
    ASSERT_TRUE(store.ok());
    auto committed = (*store)->CommitVersion(commit);
    ASSERT_TRUE(committed.ok());
    v = *committed;
  }  // closing flushes the blobs into a blob file
  ASSERT_TRUE(DamageBlobFile(path, commit.weights.substr(1000, 64)));

  auto store = RegistryStore::Open(path, OpenMode::kReadOnly);
  ASSERT_TRUE(store.ok()) << store.status().message();
  auto read = (*store)->GetBlob(v.weights_sha256);
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.status().code(), Status::Code::kCorruption) << read.status().message();
  auto problems = (*store)->Verify();
  ASSERT_TRUE(problems.ok());
  EXPECT_TRUE(AnyProblemMentions(*problems, v.weights_sha256))
      << ::testing::PrintToString(*problems);
  // The undamaged snapshot blob still reads.
  EXPECT_TRUE((*store)->GetBlob(v.snapshot_sha256s[0]).ok());
}

TEST(RegistryBlobs, VerifyReportsDanglingReferences) {
  TempDir dir("dangling");
  const std::string path = dir.Sub("r.db");
  std::mt19937_64 rng(7);
  std::string snapshot_sha;
  {
    auto store = RegistryStore::Open(path, OpenMode::kCreate);
    ASSERT_TRUE(store.ok());
    auto v = (*store)->CommitVersion(testing::SampleCommit(&rng, 1, 500, "x86.vnni"));
    ASSERT_TRUE(v.ok());
    snapshot_sha = v->snapshot_sha256s[0];
  }
  {
    RawDb raw(path);
    ASSERT_TRUE(raw.ok()) << raw.error();
    ASSERT_TRUE(raw.Delete("blobs", snapshot_sha).ok());
    ASSERT_TRUE(raw.Put("aliases", "stable", raw.Get("aliases", "latest")).ok());
    ASSERT_TRUE(raw.Delete("versions", std::string(7, '\0') + "\x01").ok());
  }
  auto store = RegistryStore::Open(path, OpenMode::kReadOnly);
  ASSERT_TRUE(store.ok());
  auto problems = (*store)->Verify();
  ASSERT_TRUE(problems.ok());
  EXPECT_TRUE(AnyProblemMentions(*problems, "missing blob " + snapshot_sha))
      << ::testing::PrintToString(*problems);
  EXPECT_TRUE(AnyProblemMentions(*problems, "alias latest points to missing version 1"));
  EXPECT_TRUE(AnyProblemMentions(*problems, "missing version"));
}

}  // namespace
}  // namespace ucmoh::registry
