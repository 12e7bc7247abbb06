// One writer at a time: a second read-write open, from another process or
// this one, fails with kBusy and says why, while read-only opens keep working.
#include <gtest/gtest.h>

#include "child_process.h"
#include "registry_test_support.h"
#include "ucmoh/registry/registry_store.h"

namespace ucmoh::registry {
namespace {

using testing::ChildProcess;
using testing::TempDir;

TEST(RegistryBusy, SecondWriterIsBusyReadersWork) {
  TempDir dir("busy");
  const std::string path = dir.Sub("r.db");
  std::mt19937_64 rng(9);
  {
    auto store = RegistryStore::Open(path, OpenMode::kCreate);
    ASSERT_TRUE(store.ok());
    ASSERT_TRUE((*store)->CommitVersion(testing::SampleCommit(&rng, 1, 2000, "x86.vnni")).ok());
  }
  ChildProcess holder({UCMOH_REGISTRY_HELPER, "hold", path});
  ASSERT_TRUE(holder.started());
  ASSERT_EQ(holder.ReadLine(20000), "ready");

  auto writer = RegistryStore::Open(path, OpenMode::kReadWrite);
  ASSERT_FALSE(writer.ok());
  EXPECT_EQ(writer.status().code(), Status::Code::kBusy);
  EXPECT_NE(writer.status().message().find("another process holds it"), std::string::npos)
      << writer.status().message();
  EXPECT_NE(writer.status().message().find(path), std::string::npos);

  auto reader = RegistryStore::Open(path, OpenMode::kReadOnly);
  ASSERT_TRUE(reader.ok()) << reader.status().message();
  EXPECT_EQ(*(*reader)->ResolveRef("latest"), 1);
  auto v = (*reader)->GetVersion(1);
  ASSERT_TRUE(v.ok());
  EXPECT_TRUE((*reader)->GetBlob(v->weights_sha256).ok());
  EXPECT_TRUE((*reader)->Verify()->empty());

  holder.CloseStdin();  // the holder exits and releases the lock
  EXPECT_EQ(holder.Wait(), 0);
  auto after = RegistryStore::Open(path, OpenMode::kReadWrite);
  EXPECT_TRUE(after.ok()) << after.status().message();
}

TEST(RegistryBusy, SecondWriterInTheSameProcessIsBusy) {
  TempDir dir("busy_self");
  const std::string path = dir.Sub("r.db");
  auto first = RegistryStore::Open(path, OpenMode::kCreate);
  ASSERT_TRUE(first.ok());
  auto second = RegistryStore::Open(path, OpenMode::kReadWrite);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), Status::Code::kBusy);
  EXPECT_TRUE(RegistryStore::Open(path, OpenMode::kReadOnly).ok());
}

}  // namespace
}  // namespace ucmoh::registry
