// `registry measure --host` against real OpenSSH servers on 127.0.0.1 (made
// by tests/remote/sshd_fixture.sh with a throwaway key and config): x86
// programs measured for real through ucmoh-measure over ssh, the same
// programs local measurement would run, a queue shared by two hosts, a host
// killed in the middle of a run, and a run whose every host dies, resumed.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <set>
#include <string>
#include <thread>

#include "ci_skip.h"
#include "child_process.h"
#include "command_runner.h"
#include "ucmoh/records_io.h"

namespace ucmoh {
namespace {

using registry::testing::ChildProcess;
using ucmoh::testing::RunCommand;

const std::string kFixture = std::string(UCMOH_SOURCE_DIR) + "/tests/remote/sshd_fixture.sh";

class RemoteMeasure : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0) UCMOH_SKIP_OR_FAIL_IN_CI("sshd logs a user in only when it runs as root");
    if (RunCommand("test -x /usr/sbin/sshd || command -v sshd").rc != 0)
      UCMOH_SKIP_OR_FAIL_IN_CI("no sshd (tools/setup installs openssh-server)");
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = std::string(::testing::TempDir()) + "remote_" + info->name() + "_" + std::to_string(getpid());
    RunCommand("rm -rf " + dir_);
    // Ports from the pid, so suites that ctest runs in parallel never share one.
    const int port = 20000 + static_cast<int>(getpid() % 20000) * 2;
    StartHost("ucmoh-a", port);
    StartHost("ucmoh-b", port + 1);
  }
  void TearDown() override {
    if (!dir_.empty()) RunCommand(kFixture + " stop " + dir_);
  }
  void StartHost(const std::string& name, int port) {
    const auto r = RunCommand(kFixture + " start " + dir_ + " " + name + " " + std::to_string(port));
    ASSERT_EQ(r.rc, 0) << r.out;
  }
  void KillHost(const std::string& name) { ASSERT_EQ(RunCommand(kFixture + " kill " + dir_ + " " + name).rc, 0); }

  // `registry measure x86.avx2` of the mobilenetv2 suite's first `tasks` tasks.
  std::string Measure(const std::string& output, int tasks, int per_task, double min_seconds,
                      const std::vector<std::string>& hosts) const {
    std::string command = std::string(UCMOH_BINARY_DIR) + "/bin/registry --plugins " + UCMOH_SOURCE_DIR +
                          "/plugins.json measure x86.avx2 --tasks mobilenetv2 --max-tasks " + std::to_string(tasks) +
                          " --per-task " + std::to_string(per_task) + " --min-seconds " + std::to_string(min_seconds) +
                          " -q -o " + output;
    for (const std::string& host : hosts) command += " --host " + host;
    if (!hosts.empty()) command += " --ssh-config " + dir_ + "/ssh_config";
    return command;
  }
  std::string dir_;
};

// Reads a records file whole: every line must be a record, every program once.
std::vector<Record> ReadUnique(const std::string& path) {
  auto records = ReadRecordsFile(path);
  EXPECT_TRUE(records.ok()) << records.status().message();
  std::vector<Record> out;
  std::set<std::string> keys;
  if (!records.ok()) return out;
  for (NumberedRecord& r : *records) {
    EXPECT_TRUE(keys.insert(ProgramKey(r.record)).second) << "measured twice: " << ProgramKey(r.record);
    out.push_back(std::move(r.record));
  }
  return out;
}

std::set<std::string> KeysOf(const std::vector<Record>& records) {
  std::set<std::string> keys;
  for (const Record& r : records) keys.insert(ProgramKey(r));
  return keys;
}

bool FileHas(const std::string& path, const std::string& text) {
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);)
    if (line.find(text) != std::string::npos) return true;
  return false;
}

// ucmoh-measure's own answer, so a CPU without AVX2 skips with its reason.
std::string CannotMeasureAvx2() {
  const auto r = RunCommand(std::string(UCMOH_BINARY_DIR) + "/bin/ucmoh-measure-x86_64 probe x86.avx2");
  return r.out.find("\"can_measure\":true") != std::string::npos ? "" : r.out;
}

#define SKIP_WITHOUT_AVX2()                                            \
  if (const std::string why = CannotMeasureAvx2(); !why.empty()) { \
    GTEST_SKIP() << why;                                               \
  }

// The records are the programs local measurement would run, with the same
// hardware, and name the host; a second run sends nothing.
TEST_F(RemoteMeasure, GivesTheProgramsLocalMeasurementWould) {
  SKIP_WITHOUT_AVX2();
  const std::string remote = dir_ + "/remote.jsonl", local = dir_ + "/local.jsonl";
  auto r = RunCommand(Measure(remote, 2, 3, 0.002, {"ucmoh-a"}));
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("measured 6 programs of x86.avx2 on 1 hosts (ucmoh-a: 6)"), std::string::npos) << r.out;
  r = RunCommand(Measure(local, 2, 3, 0.002, {}));
  ASSERT_EQ(r.rc, 0) << r.out;
  const std::vector<Record> over_ssh = ReadUnique(remote);
  ASSERT_EQ(over_ssh.size(), 6u);
  EXPECT_EQ(KeysOf(over_ssh), KeysOf(ReadUnique(local)));
  for (const Record& record : over_ssh) {
    EXPECT_EQ(record.provenance.details.at("measured_over_ssh"), Param(std::string("ucmoh-a")));
    EXPECT_GT(record.latency.median_s, 0);
  }
  r = RunCommand(Measure(remote, 2, 3, 0.002, {"ucmoh-b"}));
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("nothing to measure: all 6 programs"), std::string::npos) << r.out;
  EXPECT_EQ(ReadUnique(remote).size(), 6u);
}

TEST_F(RemoteMeasure, AnUnreachableHostIsOneErrorAndWritesNothing) {
  SKIP_WITHOUT_AVX2();
  KillHost("ucmoh-b");
  const std::string out = dir_ + "/unreachable.jsonl";
  const auto r = RunCommand(Measure(out, 1, 2, 0.002, {"ucmoh-a", "ucmoh-b"}));
  EXPECT_NE(r.rc, 0);
  EXPECT_NE(r.out.find("error: host ucmoh-b: ssh failed"), std::string::npos) << r.out;
  EXPECT_NE(access(out.c_str(), F_OK), 0) << "an output file was written";
}

TEST_F(RemoteMeasure, TwoHostsShareOneQueue) {
  SKIP_WITHOUT_AVX2();
  const std::string out = dir_ + "/two.jsonl";
  const auto r = RunCommand(Measure(out, 4, 3, 0.002, {"ucmoh-a", "ucmoh-b"}));
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("measured 12 programs of x86.avx2 on 2 hosts (ucmoh-a: "), std::string::npos) << r.out;
  EXPECT_EQ(ReadUnique(out).size(), 12u);
}

// Starts a measurement in the background and kills `victim` once the output
// file holds one of its records; returns what the run printed and its status.
std::pair<int, std::string> KillDuringRun(RemoteMeasure& test, const std::string& command,
                                          const std::string& out, const std::string& victim,
                                          const std::string& fixture_dir) {
  ChildProcess run({"/bin/sh", "-c", command + " 2>&1"});
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (!FileHas(out, "\"measured_over_ssh\":\"" + victim + "\"") && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_TRUE(FileHas(out, victim)) << victim << " never delivered a record";
  RunCommand(kFixture + " kill " + fixture_dir + " " + victim);
  const int status = run.Wait();
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, run.ReadRest()};
}

// Host b dies mid-run: what it measured stays, its unfinished programs go to
// host a, and the run completes with every program exactly once.
TEST_F(RemoteMeasure, AKilledHostLosesOnlyItsUnfinishedPrograms) {
  SKIP_WITHOUT_AVX2();
  const std::string out = dir_ + "/killed.jsonl";
  const auto [rc, printed] = KillDuringRun(*this, Measure(out, 6, 4, 0.1, {"ucmoh-a", "ucmoh-b"}), out, "ucmoh-b", dir_);
  EXPECT_EQ(rc, 0) << printed;
  EXPECT_NE(printed.find("warning: host ucmoh-b:"), std::string::npos) << printed;
  const std::vector<Record> records = ReadUnique(out);
  EXPECT_EQ(records.size(), 24u) << printed;
  int64_t from_b = 0;
  for (const Record& r : records) from_b += r.provenance.details.at("measured_over_ssh") == Param(std::string("ucmoh-b"));
  EXPECT_GT(from_b, 0);
  EXPECT_LT(from_b, 24);
}

// The only host dies: the run stops with what it has (whole records only)
// and says how to resume; the same command with a live host completes it.
TEST_F(RemoteMeasure, WhenEveryHostDiesTheRunResumes) {
  SKIP_WITHOUT_AVX2();
  const std::string out = dir_ + "/resume.jsonl";
  const auto [rc, printed] = KillDuringRun(*this, Measure(out, 6, 4, 0.1, {"ucmoh-b"}), out, "ucmoh-b", dir_);
  EXPECT_NE(rc, 0) << printed;
  EXPECT_NE(printed.find("run the same command again to resume"), std::string::npos) << printed;
  const size_t kept = ReadUnique(out).size();
  EXPECT_GT(kept, 0u);
  EXPECT_LT(kept, 24u);
  const auto r = RunCommand(Measure(out, 6, 4, 0.002, {"ucmoh-a"}));
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("measured " + std::to_string(24 - kept) + " programs"), std::string::npos) << r.out;
  EXPECT_EQ(ReadUnique(out).size(), 24u);
}

}  // namespace
}  // namespace ucmoh
