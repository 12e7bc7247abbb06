// Issue 6 reliability, through the real `registry` binary: `add-intrinsic`
// killed with SIGKILL at a random moment, 20 times, must always leave a
// registry that opens, passes `verify`, and holds the old or the new version
// (never a half one). Plus the commands the flow test does not reach:
// predict, show, events and gc.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <thread>

#include "command_runner.h"
#include "registry_test_support.h"
#include "shared_data.h"

namespace fs = std::filesystem;

namespace {

using ucmoh::testing::CommandResult;

class Scratch {
 public:
  Scratch() : dir_(fs::temp_directory_path() / ("ucmoh_kill_test_" + std::to_string(::getpid()))) {
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  ~Scratch() { fs::remove_all(dir_); }
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }

 private:
  fs::path dir_;
};

std::vector<std::string> BaseArgs(const std::string& db) {
  return {UCMOH_REGISTRY_BIN, "--plugins", std::string(UCMOH_SOURCE_DIR) + "/plugins.json", "--db", db};
}

CommandResult Registry(const std::string& db, const std::string& args) {
  std::string cmd;
  for (const auto& a : BaseArgs(db)) cmd += a + " ";
  return ucmoh::testing::RunCommand(cmd + args);
}

// Starts `registry ... args` with output discarded; returns its pid.
pid_t Spawn(const std::string& db, const std::vector<std::string>& args) {
  std::vector<std::string> all = BaseArgs(db);
  all.insert(all.end(), args.begin(), args.end());
  const pid_t pid = fork();
  if (pid == 0) {
    std::freopen("/dev/null", "w", stdout);
    std::freopen("/dev/null", "w", stderr);
    std::vector<char*> argv;
    for (auto& a : all) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  return pid;
}

// The public int8 CUTLASS file; call after UCMOH_SKIP_WITHOUT_SHARED_DATA.
std::string Int8Csv() {
  const std::string csv = ucmoh::testing::CutlassDataDir() + "/resnet50_cutlass_profiler_result_int8.csv";
  EXPECT_TRUE(fs::exists(csv)) << csv << " is missing from the shared data folder";
  return csv;
}

size_t VersionCount(const std::string& db) {
  const CommandResult r = Registry(db, "versions --json");
  EXPECT_EQ(r.rc, 0) << r.out;
  return r.rc == 0 ? nlohmann::json::parse(r.out).size() : 0;
}

TEST(RegistryKill, AddIntrinsicKilledAtRandomLeavesOldOrNewVersion) {
  UCMOH_SKIP_WITHOUT_SHARED_DATA();
  const std::string csv = Int8Csv();
  Scratch scratch;
  const std::string db = scratch.Path("kill.db");
  ASSERT_EQ(Registry(db, "init").rc, 0);
  ASSERT_EQ(Registry(db, "records import cutlass " + csv).rc, 0);
  const std::vector<std::string> add = {"add-intrinsic", "tensorcore.i8816", "--epochs", "2", "--relearn", "-q"};

  // How long one uninterrupted add-intrinsic takes: kills land in [0, 0.9x].
  const auto start = std::chrono::steady_clock::now();
  int status = 0;
  waitpid(Spawn(db, add), &status, 0);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  const auto full_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - start).count();

  std::mt19937_64 rng(20261122);
  std::uniform_int_distribution<int64_t> when(0, full_ms * 9 / 10);
  int landed_mid_run = 0;
  for (int round = 0; round < 20; ++round) {
    const size_t before = VersionCount(db);
    const pid_t pid = Spawn(db, add);
    std::this_thread::sleep_for(std::chrono::milliseconds(when(rng)));
    const bool still_running = waitpid(pid, &status, WNOHANG) == 0;
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    landed_mid_run += still_running;

    const CommandResult verify = Registry(db, "verify");
    ASSERT_EQ(verify.rc, 0) << "round " << round << ": " << verify.out;
    const size_t after = VersionCount(db);
    EXPECT_TRUE(after == before || after == before + 1) << "round " << round << ": " << before << " -> " << after;
    const CommandResult latest = Registry(db, "show ucmoh@latest --json");
    ASSERT_EQ(latest.rc, 0) << latest.out;
    EXPECT_EQ(nlohmann::json::parse(latest.out)["version"].get<size_t>(), after);
  }
  std::printf("one add-intrinsic: %lld ms; %d of 20 kills landed while it ran\n",
              static_cast<long long>(full_ms), landed_mid_run);
  EXPECT_GE(landed_mid_run, 5);  // the test is about kills that interrupt something (timing varies with load)
}

TEST(RegistryKill, PredictShowEventsAndGc) {
  UCMOH_SKIP_WITHOUT_SHARED_DATA();
  const std::string csv = Int8Csv();
  Scratch scratch;
  const std::string db = scratch.Path("cmds.db");
  const std::string records = scratch.Path("int8.jsonl");
  ASSERT_EQ(Registry(db, "init").rc, 0);
  ASSERT_EQ(Registry(db, "import cutlass " + csv + " -o " + records).rc, 0);
  ASSERT_EQ(Registry(db, "records add " + records).rc, 0);
  ASSERT_EQ(Registry(db, "add-intrinsic tensorcore.i8816 --epochs 2 -q").rc, 0);
  ASSERT_EQ(Registry(db, "add-intrinsic tensorcore.i8816 --epochs 2 --relearn -q").rc, 0);

  // predict: every record scored, split by intrinsic, the same on a rerun.
  CommandResult r = Registry(db, "predict --model ucmoh@latest --data " + records + " --json");
  ASSERT_EQ(r.rc, 0) << r.out;
  const auto predicted = nlohmann::json::parse(r.out);
  const auto& all = predicted["metrics"]["all"];
  EXPECT_EQ(all["programs"], 366) << r.out;
  int64_t per_intrinsic = 0;
  for (const auto& [name, m] : predicted["metrics"]["intrinsics"].items()) {
    per_intrinsic += m["programs"].get<int64_t>();
    EXPECT_GE(m["pca"].get<double>(), 0.0) << name;
    EXPECT_LE(m["pca"].get<double>(), 1.0) << name;
  }
  EXPECT_EQ(per_intrinsic, 366);
  EXPECT_EQ(predicted["metrics"]["intrinsics"].size(), 2u) << r.out;
  EXPECT_EQ(Registry(db, "predict --model ucmoh@latest --data " + records + " --json").out, r.out);

  r = Registry(db, "show ucmoh@1 --json");
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_EQ(nlohmann::json::parse(r.out)["version"], 1);
  EXPECT_NE(Registry(db, "show ucmoh@9").rc, 0);

  // events: both commits, in order, each naming its version.
  r = Registry(db, "events --json");
  ASSERT_EQ(r.rc, 0) << r.out;
  std::vector<std::string> commits;
  for (const auto& e : nlohmann::json::parse(r.out))
    if (e["kind"] == "commit_version") commits.push_back(e["detail"].get<std::string>().substr(0, 7));
  EXPECT_EQ(commits, (std::vector<std::string>{"ucmoh@1", "ucmoh@2"})) << r.out;

  r = Registry(db, "gc");
  EXPECT_EQ(r.rc, 0) << r.out;
  EXPECT_EQ(Registry(db, "verify").rc, 0);
  EXPECT_EQ(VersionCount(db), 2u);
}

TEST(RegistryKill, VerifyAndPullRefuseCorruptedWeights) {
  UCMOH_SKIP_WITHOUT_SHARED_DATA();
  const std::string csv = Int8Csv();
  Scratch scratch;
  const std::string db = scratch.Path("corrupt.db");
  ASSERT_EQ(Registry(db, "init").rc, 0);
  ASSERT_EQ(Registry(db, "records import cutlass " + csv).rc, 0);
  ASSERT_EQ(Registry(db, "add-intrinsic tensorcore.i8816 --epochs 2 -q").rc, 0);
  CommandResult shown = Registry(db, "show ucmoh@1 --json");
  ASSERT_EQ(shown.rc, 0) << shown.out;
  const std::string sha = nlohmann::json::parse(shown.out)["weights_sha256"];
  {
    ucmoh::registry::testing::RawDb raw(db);
    ASSERT_TRUE(raw.ok()) << raw.error();
    ASSERT_TRUE(raw.Put("blobs", sha, "tampered weights").ok());
  }
  CommandResult verify = Registry(db, "verify");
  EXPECT_NE(verify.rc, 0);
  EXPECT_NE(verify.out.find(sha.substr(0, 12)), std::string::npos) << verify.out;
  const std::string out = scratch.Path("pulled");
  CommandResult pull = Registry(db, "pull ucmoh@1 -o " + out);
  EXPECT_NE(pull.rc, 0);
  EXPECT_NE(pull.out.find("sha256"), std::string::npos) << pull.out;
  EXPECT_FALSE(fs::exists(out + "/model.pt"));  // nothing written from bad bytes
}

}  // namespace
