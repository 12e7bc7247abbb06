// `--workers N` through the real `registry` binary: N processes over c10d
// Gloo train what one process trains, and a worker killed with SIGKILL fails
// the job with a message naming it, leaving no model file and no version.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <sstream>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "child_process.h"
#include "command_runner.h"
#include "registry_test_support.h"
#include "shared_data.h"

namespace {

namespace fs = std::filesystem;
using ucmoh::registry::testing::ChildProcess;
using ucmoh::registry::testing::TempDir;
using ucmoh::testing::CommandResult;
using Clock = std::chrono::steady_clock;

std::string Registry() {
  return std::string(UCMOH_REGISTRY_BIN) + " --plugins " + UCMOH_SOURCE_DIR + "/plugins.json";
}

CommandResult RunRegistry(const std::string& args) { return ucmoh::testing::RunCommand(Registry() + " " + args); }

// The fp16 CUTLASS records (two intrinsics, 1,102 programs) as JSON Lines.
std::string Fp16Records(const TempDir& dir) {
  const std::string csv = ucmoh::testing::CutlassDataDir() + "/resnet50_cutlass_profiler_result.csv";
  EXPECT_TRUE(fs::exists(csv)) << csv << " is missing from the shared data folder";
  const std::string out = dir.Sub("fp16.jsonl");
  const CommandResult r = RunRegistry("import cutlass " + csv + " -o " + out);
  EXPECT_EQ(r.rc, 0) << r.out;
  return out;
}

// The local ranks `parent` started (its children), waiting up to 20 s for them.
std::vector<pid_t> ChildrenOf(pid_t parent, size_t expected) {
  std::vector<pid_t> children;
  for (int tries = 0; tries < 200 && children.size() < expected; ++tries) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    children.clear();
    const CommandResult r = ucmoh::testing::RunCommand("pgrep -P " + std::to_string(parent));
    std::istringstream in(r.out);
    for (pid_t pid; in >> pid;) children.push_back(pid);
  }
  return children;
}

bool Alive(pid_t pid) { return ::kill(pid, 0) == 0; }

// CPU seconds `pid` has used (utime + stime, /proc/PID/stat fields 14-15).
double CpuSeconds(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  std::getline(stat, line);
  const auto after_name = line.rfind(')');  // the command name may hold spaces
  if (after_name == std::string::npos) return 0;
  std::istringstream fields(line.substr(after_name + 2));
  std::string field;
  double ticks = 0;
  for (int i = 3; i <= 15 && fields >> field; ++i)
    if (i >= 14) ticks += std::stod(field);
  return ticks / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

// Waits (up to 120 s) until `pid` has worked for `cpu_seconds`: past loading
// and joining, into training, however loaded the machine (or slow the
// sanitizer build) is.
void WaitUntilTraining(pid_t pid, double cpu_seconds = 1.5) {
  const auto deadline = Clock::now() + std::chrono::seconds(120);
  while (Clock::now() < deadline && Alive(pid) && CpuSeconds(pid) < cpu_seconds)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_GE(CpuSeconds(pid), cpu_seconds) << "pid " << pid << " never got into training";
}

// `train` with `workers` local ranks that would run until killed (rank 0 is
// the shell's exec), its model to be dir/never.pt.
std::vector<std::string> EndlessTraining(const TempDir& dir, int workers) {
  return {"/bin/sh", "-c",
          "exec " + Registry() + " train --data " + Fp16Records(dir) + " --epochs 1000 --patience 1000 --workers " +
              std::to_string(workers) + " --worker-timeout 60 -o " + dir.Sub("never.pt") + " 2>&1"};
}

// How `job` (rank 0) ended after its local rank `worker` was SIGKILLed.
struct AfterKill {
  std::string out;
  int status = 0;
  double seconds = 0;  // from the kill to rank 0's exit
};

AfterKill KillWorker(ChildProcess& job, pid_t worker) {
  EXPECT_EQ(::kill(worker, SIGKILL), 0);
  const auto killed = Clock::now();
  AfterKill after;
  after.out = job.ReadRest();
  after.status = job.Wait();
  after.seconds = std::chrono::duration<double>(Clock::now() - killed).count();
  return after;
}

// Whether every process of `pids` is gone within `seconds` (orphans are reaped
// by init; kill(pid, 0) fails once they are).
bool AllStopWithin(const std::vector<pid_t>& pids, int seconds) {
  const auto deadline = Clock::now() + std::chrono::seconds(seconds);
  auto any_alive = [&] { return std::any_of(pids.begin(), pids.end(), Alive); };
  while (Clock::now() < deadline && any_alive()) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  return !any_alive();
}

TEST(RegistryWorkers, TwoProcessesTrainWhatOneTrains) {
  UCMOH_SKIP_WITHOUT_SHARED_DATA();
  TempDir dir("workers_same");
  const std::string records = Fp16Records(dir);
  // --min-val-tasks 2: validate (on 2 tasks), so the ranks must agree on it too
  const std::string train = "train --data " + records + " --epochs 3 --seed 5 --min-val-tasks 2 --json -o ";
  const CommandResult one = RunRegistry(train + dir.Sub("one.pt"));
  const CommandResult two = RunRegistry(train + dir.Sub("two.pt") + " --workers 2");
  ASSERT_EQ(one.rc, 0) << one.out;
  ASSERT_EQ(two.rc, 0) << two.out;
  const auto a = nlohmann::json::parse(one.out), b = nlohmann::json::parse(two.out);
  EXPECT_EQ(a["epochs_run"], b["epochs_run"]);
  EXPECT_NEAR(a["final_train_loss"].get<double>(), b["final_train_loss"].get<double>(), 1e-4);
  EXPECT_GT(a["best_val_pca"].get<double>(), 0);
  EXPECT_NEAR(a["best_val_pca"].get<double>(), b["best_val_pca"].get<double>(), 1e-9);
  EXPECT_NEAR(a["test"]["all"]["pca"].get<double>(), b["test"]["all"]["pca"].get<double>(), 1e-9);
  EXPECT_TRUE(fs::exists(dir.Sub("two.pt")));
}

TEST(RegistryWorkers, KilledWorkerFailsTrainingAndWritesNoModel) {
  UCMOH_SKIP_WITHOUT_SHARED_DATA();
  TempDir dir("workers_kill");
  const std::string model = dir.Sub("never.pt");
  ChildProcess job(EndlessTraining(dir, 2));
  ASSERT_TRUE(job.started());
  const auto workers = ChildrenOf(job.pid(), 1);  // the shell exec'd rank 0; rank 1 is its child
  ASSERT_EQ(workers.size(), 1u);
  WaitUntilTraining(workers[0], /*cpu_seconds=*/5);  // well past loading, even under the sanitizers
  const auto [out, status, seconds] = KillWorker(job, workers[0]);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 1) << out;
  EXPECT_LT(seconds, 30) << "rank 0 noticed the dead worker only after " << seconds << " s";
  // Which collective sees the dead peer depends on how far rank 0 got: on a
  // loaded machine rank 1 can spend its CPU seconds waiting at the agreement
  // check that opens training, so the kill lands there instead of in the
  // gradient all-reduce. Either is right.
  EXPECT_NE(out.find("rank 0 of 2: "), std::string::npos) << out;
  EXPECT_NE(out.find(" failed (another worker stopped or timed out)"), std::string::npos) << out;
  EXPECT_NE(out.find("rank 1 (pid " + std::to_string(workers[0]) + ") was killed by signal 9"), std::string::npos)
      << out;
  EXPECT_FALSE(fs::exists(model)) << "a failed data-parallel job wrote its model";
}

// Killed while loading, a worker never joins: rank 0 notices its exit while
// it waits for the group (rather than waiting out --worker-timeout, 60 s here).
TEST(RegistryWorkers, WorkerKilledBeforeJoiningFailsTheJobAtOnce) {
  UCMOH_SKIP_WITHOUT_SHARED_DATA();
  TempDir dir("workers_kill_early");
  ChildProcess job(EndlessTraining(dir, 2));
  const auto workers = ChildrenOf(job.pid(), 1);
  ASSERT_EQ(workers.size(), 1u);
  const auto [out, status, seconds] = KillWorker(job, workers[0]);  // still loading its records
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 1) << out;
  EXPECT_LT(seconds, 30) << "rank 0 waited " << seconds << " s for a dead worker to join";
  EXPECT_NE(out.find("a local rank stopped before the group formed"), std::string::npos) << out;
  EXPECT_NE(out.find("rank 1 (pid " + std::to_string(workers[0]) + ") was killed by signal 9"), std::string::npos)
      << out;
  EXPECT_FALSE(fs::exists(dir.Sub("never.pt")));
}

TEST(RegistryWorkers, KilledRankZeroStopsTheOtherRanks) {
  UCMOH_SKIP_WITHOUT_SHARED_DATA();
  TempDir dir("workers_kill0");
  ChildProcess job(EndlessTraining(dir, 3));
  const auto workers = ChildrenOf(job.pid(), 2);
  ASSERT_EQ(workers.size(), 2u);
  WaitUntilTraining(workers[1]);
  job.Kill(SIGKILL);
  job.Wait();
  EXPECT_TRUE(AllStopWithin(workers, 30)) << "ranks 1 and 2 outlived rank 0 by 30 s";
  EXPECT_FALSE(fs::exists(dir.Sub("never.pt")));
}

// Killed before the group has formed, rank 0 leaves nothing for Gloo to
// notice: its ranks would wait --worker-timeout (60 s) for its store. They die
// with it instead (PR_SET_PDEATHSIG, cli_workers.cpp).
TEST(RegistryWorkers, RanksDieWithARankZeroKilledBeforeTheGroupForms) {
  UCMOH_SKIP_WITHOUT_SHARED_DATA();
  TempDir dir("workers_kill0_early");
  ChildProcess job(EndlessTraining(dir, 3));
  const auto workers = ChildrenOf(job.pid(), 2);
  ASSERT_EQ(workers.size(), 2u);
  job.Kill(SIGKILL);  // the ranks are still loading their records
  job.Wait();
  EXPECT_TRUE(AllStopWithin(workers, 20)) << "ranks 1 and 2 outlived an early-killed rank 0 by 20 s";
}

TEST(RegistryWorkers, AddIntrinsicCommitsOnceAndAKilledWorkerCommitsNothing) {
  UCMOH_SKIP_WITHOUT_SHARED_DATA();
  TempDir dir("workers_add");
  const std::string csv = ucmoh::testing::CutlassDataDir() + "/resnet50_cutlass_profiler_result.csv";
  auto versions = [&](const std::string& db) {
    const CommandResult r = RunRegistry("--db " + db + " versions --json");
    EXPECT_EQ(r.rc, 0) << r.out;
    return r.rc == 0 ? nlohmann::json::parse(r.out).size() : 0;
  };
  auto pca = [&](const std::string& db) {
    const CommandResult r = RunRegistry("--db " + db + " show ucmoh@latest --json");
    EXPECT_EQ(r.rc, 0) << r.out;
    return nlohmann::json::parse(r.out)["evaluation"][0]["pca"].get<double>();
  };
  for (const std::string& db : {dir.Sub("one.db"), dir.Sub("two.db")}) {
    ASSERT_EQ(RunRegistry("--db " + db + " init").rc, 0);
    ASSERT_EQ(RunRegistry("--db " + db + " records import cutlass " + csv).rc, 0);
  }
  const std::string add = " add-intrinsic tensorcore.h1688 --epochs 3 -q";
  const CommandResult one = RunRegistry("--db " + dir.Sub("one.db") + add);
  const CommandResult two = RunRegistry("--db " + dir.Sub("two.db") + add + " --workers 2");
  ASSERT_EQ(one.rc, 0) << one.out;
  ASSERT_EQ(two.rc, 0) << two.out;
  EXPECT_EQ(versions(dir.Sub("two.db")), 1u);  // rank 1 did not commit a second version
  EXPECT_NEAR(pca(dir.Sub("one.db")), pca(dir.Sub("two.db")), 1e-9);

  ChildProcess job({"/bin/sh", "-c",
                    "exec " + Registry() + " --db " + dir.Sub("two.db") +
                        " add-intrinsic tensorcore.h16816 --epochs 1000 --patience 1000 --workers 2 --worker-timeout 60 -q 2>&1"});
  const auto workers = ChildrenOf(job.pid(), 1);
  ASSERT_EQ(workers.size(), 1u);
  // Past joining (a rank killed before it joins is another test's case).
  WaitUntilTraining(workers[0], /*cpu_seconds=*/5);
  const AfterKill after = KillWorker(job, workers[0]);
  EXPECT_TRUE(WIFEXITED(after.status) && WEXITSTATUS(after.status) == 1) << after.out;
  EXPECT_NE(after.out.find("was killed by signal 9"), std::string::npos) << after.out;
  EXPECT_EQ(versions(dir.Sub("two.db")), 1u);
  const CommandResult verify = RunRegistry("--db " + dir.Sub("two.db") + " verify");
  EXPECT_EQ(verify.rc, 0) << verify.out;
}

}  // namespace
