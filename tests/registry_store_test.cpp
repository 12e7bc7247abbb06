// Round trips of every registry entity, refs, aliases, events and GC.
#include <gtest/gtest.h>

#include <cstdlib>

#include "registry_test_support.h"
#include "ucmoh/records_io.h"
#include "ucmoh/registry/registry_path.h"
#include "ucmoh/registry/registry_store.h"
#include "ucmoh/registry/version_ref.h"

namespace ucmoh::registry {
namespace {

using testing::SampleCommit;
using testing::SampleRecord;
using testing::TempDir;

std::unique_ptr<RegistryStore> OpenOrDie(const std::string& path, OpenMode mode) {
  auto store = RegistryStore::Open(path, mode);
  EXPECT_TRUE(store.ok()) << store.status().message();
  return store.ok() ? std::move(*store) : nullptr;
}

void ExpectClean(const RegistryStore& store) {
  auto problems = store.Verify();
  ASSERT_TRUE(problems.ok()) << problems.status().message();
  for (const auto& p : *problems) ADD_FAILURE() << "verify: " << p;
}

TEST(RegistryStore, OpenModes) {
  TempDir dir("open");
  const std::string path = dir.Sub("registry.db");
  auto missing = RegistryStore::Open(path, OpenMode::kReadWrite);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), Status::Code::kNotFound);
  EXPECT_NE(missing.status().message().find(path), std::string::npos);
  EXPECT_EQ(RegistryStore::Open(path, OpenMode::kReadOnly).status().code(), Status::Code::kNotFound);

  auto created = OpenOrDie(path, OpenMode::kCreate);
  ASSERT_TRUE(created);
  EXPECT_EQ(created->schema_version(), RegistryStore::kSchemaVersion);
  created.reset();
  auto ro = OpenOrDie(path, OpenMode::kReadOnly);
  ASSERT_TRUE(ro);
  EXPECT_TRUE(ro->read_only());
  EXPECT_EQ(ro->PutBlob("x").status().code(), Status::Code::kInvalidArgument);
  ExpectClean(*ro);
}

TEST(RegistryStore, RegistryPath) {
  ::unsetenv(kRegistryEnvVar);
  EXPECT_EQ(ResolveRegistryPath(""), "./registry.db");
  ::setenv(kRegistryEnvVar, "/tmp/env.db", 1);
  EXPECT_EQ(ResolveRegistryPath(""), "/tmp/env.db");
  EXPECT_EQ(ResolveRegistryPath("/x/flag.db"), "/x/flag.db");
  ::unsetenv(kRegistryEnvVar);
}

TEST(RegistryStore, RecordsRoundTripAndCount) {
  TempDir dir("records");
  auto store = OpenOrDie(dir.Sub("r.db"), OpenMode::kCreate);
  ASSERT_TRUE(store);
  std::vector<Record> batch = {SampleRecord("x86.vnni", 1), SampleRecord("x86.vnni", 2),
                               SampleRecord("arm.sdot", 1), SampleRecord("x86.vnni", 1)};
  auto added = store->AddRecords(batch);
  ASSERT_TRUE(added.ok()) << added.status().message();
  EXPECT_EQ(added->added, 3);
  EXPECT_EQ(added->replaced, 1);  // the same program twice in one batch
  EXPECT_EQ(*store->CountRecords("x86.vnni"), 2);
  EXPECT_EQ(*store->CountRecords("arm.sdot"), 1);
  EXPECT_EQ(*store->CountRecords("x86.bf16"), 0);

  Record changed = SampleRecord("x86.vnni", 2);
  changed.latency.median_s = 42;
  auto again = store->AddRecords({changed});
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->added, 0);
  EXPECT_EQ(again->replaced, 1);
  EXPECT_EQ(*store->CountRecords("x86.vnni"), 2);

  auto read = store->ReadRecords("x86.vnni");
  ASSERT_TRUE(read.ok()) << read.status().message();
  ASSERT_EQ(read->size(), 2u);
  bool saw_changed = false;
  for (const auto& r : *read) {
    EXPECT_EQ(r.intrinsic, "x86.vnni");
    if (ProgramKey(r) == ProgramKey(changed)) {
      EXPECT_EQ(RecordToJsonLine(r), RecordToJsonLine(changed));
      saw_changed = true;
    }
  }
  EXPECT_TRUE(saw_changed);
  EXPECT_EQ(*store->RecordIntrinsics(), (std::vector<std::string>{"arm.sdot", "x86.vnni"}));
  ExpectClean(*store);
}

TEST(RegistryStore, IntrinsicsRoundTrip) {
  TempDir dir("intrinsics");
  auto store = OpenOrDie(dir.Sub("r.db"), OpenMode::kCreate);
  ASSERT_TRUE(store);
  IntrinsicEntry e{"arm.sdot", "arm", "ucmoh_arm", std::string(64, 'c'), 0, 0};
  ASSERT_TRUE(store->PutIntrinsic(e).ok());
  auto back = store->GetIntrinsic("arm.sdot");
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->plugin, "ucmoh_arm");
  EXPECT_EQ(back->plugin_sha256, e.plugin_sha256);
  EXPECT_EQ(back->learned_in_version, 0);
  e.learned_in_version = 9;
  EXPECT_EQ(store->PutIntrinsic(e).code(), Status::Code::kNotFound);  // no version 9
  EXPECT_EQ(store->GetIntrinsic("nope").status().code(), Status::Code::kNotFound);
  EXPECT_EQ(store->ListIntrinsics()->size(), 1u);
}

TEST(RegistryStore, VersionsSnapshotsAndLatest) {
  TempDir dir("versions");
  const std::string path = dir.Sub("r.db");
  std::mt19937_64 rng(1);
  ModelVersion v1, v2;
  {
    auto store = OpenOrDie(path, OpenMode::kCreate);
    ASSERT_TRUE(store);
    EXPECT_EQ(store->ResolveRef("latest").status().code(), Status::Code::kNotFound);
    VersionCommit c1 = SampleCommit(&rng, 0, 5000, "x86.vnni");
    auto r1 = store->CommitVersion(c1);
    ASSERT_TRUE(r1.ok()) << r1.status().message();
    v1 = *r1;
    EXPECT_EQ(v1.number, 1);
    VersionCommit c2 = SampleCommit(&rng, 2, 7000, "x86.bf16");
    c2.version.parent = 1;
    c2.version.intrinsics = {"x86.vnni", "x86.bf16"};
    c2.version.evaluation.rows.push_back({"x86.vnni", 0.85, 0.7, 0.9});
    c2.version.evaluation.bwt = -0.05;
    auto r2 = store->CommitVersion(c2);
    ASSERT_TRUE(r2.ok()) << r2.status().message();
    v2 = *r2;
    EXPECT_EQ(v2.snapshot_sha256s.size(), 2u);
    EXPECT_EQ(*store->GetBlob(v2.weights_sha256), c2.weights);
    EXPECT_EQ(*store->GetBlob(v2.snapshot_sha256s[1]), c2.snapshots[1].bytes);

    VersionCommit bad = SampleCommit(&rng, 0, 100, "x86.vnni");
    bad.version.parent = 7;
    EXPECT_FALSE(store->CommitVersion(bad).ok());
    bad.version.parent = 0;
    bad.version.number = 2;
    EXPECT_EQ(store->CommitVersion(bad).status().code(), Status::Code::kAlreadyExists);
  }
  auto store = OpenOrDie(path, OpenMode::kReadOnly);  // everything survives a reopen
  ASSERT_TRUE(store);
  auto back = store->GetVersion(2);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->name, "ucmoh");
  EXPECT_EQ(back->parent, 1);
  EXPECT_EQ(back->intrinsics, v2.intrinsics);
  EXPECT_EQ(back->hyper_parameters, v2.hyper_parameters);
  EXPECT_EQ(std::get<double>(back->hyper_parameters.at("lr")), 1e-3);
  EXPECT_EQ(back->training_data_digest, v2.training_data_digest);
  ASSERT_EQ(back->evaluation.rows.size(), 2u);
  EXPECT_EQ(back->evaluation.rows[1].intrinsic, "x86.vnni");
  EXPECT_DOUBLE_EQ(back->evaluation.rows[1].pca, 0.85);
  EXPECT_DOUBLE_EQ(back->evaluation.bwt, -0.05);
  EXPECT_EQ(back->created_at, v2.created_at);
  EXPECT_FALSE(back->tool_version.empty());
  EXPECT_EQ(back->weights_sha256, v2.weights_sha256);
  EXPECT_EQ(back->snapshot_sha256s, v2.snapshot_sha256s);

  auto snaps = store->ListSnapshots(2);
  ASSERT_TRUE(snaps.ok());
  ASSERT_EQ(snaps->size(), 2u);
  EXPECT_EQ((*snaps)[0].name, "snap0");
  EXPECT_EQ((*snaps)[0].method, "ewc");
  EXPECT_EQ((*snaps)[0].version, 2);
  EXPECT_TRUE(store->ListSnapshots(1)->empty());

  EXPECT_EQ(*store->ResolveRef("latest"), 2);
  EXPECT_EQ(*store->ResolveRef("ucmoh@latest"), 2);
  EXPECT_EQ(*store->ResolveRef("ucmoh@1"), 1);
  EXPECT_EQ(*store->ResolveRef("1"), 1);
  EXPECT_EQ(store->ResolveRef("3").status().code(), Status::Code::kNotFound);
  EXPECT_EQ(store->ResolveRef("other@1").status().code(), Status::Code::kNotFound);
  EXPECT_EQ(store->ListVersions()->size(), 2u);

  auto learned = store->GetIntrinsic("x86.bf16");
  ASSERT_TRUE(learned.ok());
  EXPECT_EQ(learned->learned_in_version, 2);
  EXPECT_EQ(learned->learned_at, v2.created_at);
  ExpectClean(*store);
}

TEST(RegistryStore, AliasesRefuseUnknownVersions) {
  TempDir dir("aliases");
  auto store = OpenOrDie(dir.Sub("r.db"), OpenMode::kCreate);
  ASSERT_TRUE(store);
  std::mt19937_64 rng(2);
  ASSERT_TRUE(store->CommitVersion(SampleCommit(&rng, 1, 100, "x86.vnni")).ok());
  ASSERT_TRUE(store->CommitVersion(SampleCommit(&rng, 1, 100, "x86.vnni")).ok());
  EXPECT_EQ(store->SetAlias("stable", 5).code(), Status::Code::kNotFound);
  EXPECT_EQ(store->SetAlias("latest", 1).code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(store->SetAlias("12", 1).code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(store->SetAlias("a b", 1).code(), Status::Code::kInvalidArgument);
  ASSERT_TRUE(store->SetAlias("stable", 1).ok());
  EXPECT_EQ(*store->ResolveRef("ucmoh@stable"), 1);
  EXPECT_EQ(*store->ResolveRef("stable"), 1);
  EXPECT_EQ(*store->ResolveRef("latest"), 2);
  EXPECT_EQ(store->ListAliases()->size(), 2u);
  ASSERT_TRUE(store->DeleteAlias("stable").ok());
  EXPECT_EQ(store->ResolveRef("stable").status().code(), Status::Code::kNotFound);
  EXPECT_EQ(store->DeleteAlias("stable").code(), Status::Code::kNotFound);
  ExpectClean(*store);
}

TEST(RegistryStore, ParseVersionRef) {
  EXPECT_EQ(ParseVersionRef("ucmoh@3")->number, 3);
  EXPECT_EQ(ParseVersionRef("ucmoh@stable")->alias, "stable");
  EXPECT_EQ(ParseVersionRef("7")->number, 7);
  EXPECT_EQ(ParseVersionRef("latest")->alias, "latest");
  EXPECT_EQ(ParseVersionRef("foo@2")->model, "foo");
  EXPECT_FALSE(ParseVersionRef("ucmoh@0").ok());
  EXPECT_FALSE(ParseVersionRef("@3").ok());
  EXPECT_FALSE(ParseVersionRef("ucmoh@").ok());
  EXPECT_FALSE(ParseVersionRef("a/b").ok());
}

TEST(RegistryStore, EventsAreAppendOnlyAndOrdered) {
  TempDir dir("events");
  const std::string path = dir.Sub("r.db");
  {
    auto store = OpenOrDie(path, OpenMode::kCreate);
    ASSERT_TRUE(store);
    ASSERT_TRUE(store->AppendEvent("note", "first").ok());
  }
  auto store = OpenOrDie(path, OpenMode::kReadWrite);
  ASSERT_TRUE(store);
  ASSERT_TRUE(store->AppendEvent("note", "second").ok());
  std::mt19937_64 rng(3);
  ASSERT_TRUE(store->CommitVersion(SampleCommit(&rng, 0, 10, "x86.vnni")).ok());
  auto events = store->ListEvents();
  ASSERT_TRUE(events.ok());
  ASSERT_EQ(events->size(), 4u);  // create, first, second, commit_version
  EXPECT_EQ((*events)[0].kind, "create");
  EXPECT_EQ((*events)[1].detail, "first");
  EXPECT_EQ((*events)[2].detail, "second");
  EXPECT_EQ((*events)[3].kind, "commit_version");
  for (size_t i = 1; i < events->size(); ++i)
    EXPECT_GT((*events)[i].sequence, (*events)[i - 1].sequence);
  EXPECT_EQ(store->ListEvents((*events)[2].sequence)->size(), 2u);
}

TEST(RegistryStore, GarbageCollectKeepsReferencedBlobs) {
  TempDir dir("gc");
  auto store = OpenOrDie(dir.Sub("r.db"), OpenMode::kCreate);
  ASSERT_TRUE(store);
  std::mt19937_64 rng(4);
  auto v = store->CommitVersion(SampleCommit(&rng, 2, 3000, "x86.vnni"));
  ASSERT_TRUE(v.ok());
  auto orphan = store->PutBlob("nobody references me");
  ASSERT_TRUE(orphan.ok());
  EXPECT_EQ(*store->PutBlob("nobody references me"), *orphan);  // dedup
  auto gc = store->GarbageCollect();
  ASSERT_TRUE(gc.ok()) << gc.status().message();
  EXPECT_EQ(gc->blobs_deleted, 1);
  EXPECT_EQ(gc->bytes_deleted, 20);
  EXPECT_FALSE(*store->HasBlob(*orphan));
  EXPECT_TRUE(*store->HasBlob(v->weights_sha256));
  EXPECT_TRUE(store->GetBlob(v->snapshot_sha256s[1]).ok());
  EXPECT_EQ(store->GarbageCollect()->blobs_deleted, 0);
  ExpectClean(*store);
}

}  // namespace
}  // namespace ucmoh::registry
