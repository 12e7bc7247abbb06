// Crash safety: a writer committing versions in a loop is killed with SIGKILL
// at a random moment, again and again. After every kill the registry must
// open, pass Verify, and hold only whole versions: every version its writer
// saw committed, plus at most the one in flight, each with all its blobs and
// snapshot entries.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <sstream>
#include <thread>

#include "child_process.h"
#include "registry_test_support.h"
#include "ucmoh/registry/registry_store.h"

namespace ucmoh::registry {
namespace {

using testing::ChildProcess;
using testing::TempDir;

constexpr int kRounds = 24;

int64_t LastCommitted(const std::string& output, int64_t so_far) {
  std::istringstream in(output);
  std::string word;
  int64_t n = 0;
  while (in >> word)
    if (word == "committed" && in >> n) so_far = std::max(so_far, n);
  return so_far;
}

// Every version whole: blobs readable and matching, snapshot entries present.
void ExpectWholeVersions(const RegistryStore& store, int64_t at_least, int64_t at_most) {
  auto versions = store.ListVersions();
  ASSERT_TRUE(versions.ok()) << versions.status().message();
  const int64_t count = static_cast<int64_t>(versions->size());
  EXPECT_GE(count, at_least) << "a commit that returned ok was lost";
  EXPECT_LE(count, at_most) << "more versions than were committed or in flight";
  for (int64_t i = 0; i < count; ++i) {
    const ModelVersion& v = (*versions)[i];
    ASSERT_EQ(v.number, i + 1) << "version numbers have a gap";
    EXPECT_TRUE(store.GetBlob(v.weights_sha256).ok()) << "version " << v.number;
    auto snaps = store.ListSnapshots(v.number);
    ASSERT_TRUE(snaps.ok());
    ASSERT_EQ(snaps->size(), v.snapshot_sha256s.size()) << "version " << v.number;
    for (size_t s = 0; s < snaps->size(); ++s) {
      EXPECT_EQ((*snaps)[s].blob_sha256, v.snapshot_sha256s[s]);
      EXPECT_TRUE(store.GetBlob(v.snapshot_sha256s[s]).ok());
    }
  }
  if (count > 0) {
    auto latest = store.ResolveRef("latest");
    ASSERT_TRUE(latest.ok()) << latest.status().message();
    EXPECT_EQ(*latest, count);
  }
}

TEST(RegistryCrash, KillNineDuringCommitsLeavesOldOrNewVersion) {
  TempDir dir("crash");
  const std::string path = dir.Sub("r.db");
  const uint64_t seed = static_cast<uint64_t>(std::chrono::system_clock::now().time_since_epoch().count());
  std::mt19937_64 rng(seed);
  std::cout << "[ crash ] seed " << seed << "\n";
  const auto start = std::chrono::steady_clock::now();
  int64_t committed = 0;  // highest version a writer saw CommitVersion return
  int64_t present = 0;    // versions found after the previous kill
  for (int round = 0; round < kRounds; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    ChildProcess writer({UCMOH_REGISTRY_HELPER, "crash-writer", path, std::to_string(rng())});
    ASSERT_TRUE(writer.started());
    // Mostly kill mid-stream; every fourth round, early (during open and WAL
    // recovery, or the first commit).
    std::string first;
    if (round % 4 != 3) {
      first = writer.ReadLine(20000);
      ASSERT_NE(first.find("committed"), std::string::npos) << "the writer made no commit";
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(rng() % (round % 4 == 3 ? 60 : 250)));
    writer.Kill(SIGKILL);
    const int status = writer.Wait();
    ASSERT_TRUE(WIFSIGNALED(status)) << "the writer stopped on its own: " << status;
    committed = LastCommitted(first + "\n" + writer.ReadRest(), committed);

    auto store = RegistryStore::Open(path, OpenMode::kReadWrite);
    ASSERT_TRUE(store.ok()) << store.status().message();
    auto problems = (*store)->Verify();
    ASSERT_TRUE(problems.ok()) << problems.status().message();
    ASSERT_TRUE(problems->empty()) << ::testing::PrintToString(*problems);
    ExpectWholeVersions(**store, std::max(committed, present), std::max(committed, present) + 1);
    present = static_cast<int64_t>((*store)->ListVersions()->size());
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << "[ crash ] " << kRounds << " kills, " << present << " versions, " << seconds
            << " s\n";
  EXPECT_GT(present, kRounds);  // the writers did real work between kills
}

}  // namespace
}  // namespace ucmoh::registry
