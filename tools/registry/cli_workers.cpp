#include "cli_workers.h"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <string>

extern char** environ;

namespace ucmoh::cli {

namespace {

// A port nothing listens on now, for rank 0's store (the kernel picks it).
Expected<int> FreeLoopbackPort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return Status::IOError("--workers: cannot open a socket to find a free port");
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t size = sizeof addr;
  const bool ok = ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
                  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &size) == 0;
  ::close(fd);
  if (!ok) return Status::IOError("--workers: cannot bind a loopback port");
  return static_cast<int>(ntohs(addr.sin_port));
}

// Names the rank 0 that started a local rank, so the rank can tie its life to it.
constexpr const char* kLauncherVariable = "UCMOH_LAUNCHER_PID";

// Starts this program again with `argv` as rank `rank` (its stdout discarded:
// rank 0 alone reports).
Expected<pid_t> SpawnRank(const std::vector<std::string>& argv, const WorkerGroupOptions& o) {
  auto is_group_variable = [](const std::string& entry) {
    for (const char* name :
         {"RANK=", "WORLD_SIZE=", "MASTER_ADDR=", "MASTER_PORT=", "UCMOH_WORKER_TIMEOUT=", "UCMOH_LAUNCHER_PID="})
      if (entry.rfind(name, 0) == 0) return true;
    return false;
  };
  std::vector<std::string> env_strings;
  for (char** e = environ; *e != nullptr; ++e)
    if (!is_group_variable(*e)) env_strings.emplace_back(*e);
  env_strings.push_back(fmt::format("RANK={}", o.rank));
  env_strings.push_back(fmt::format("WORLD_SIZE={}", o.world_size));
  env_strings.push_back("MASTER_ADDR=" + o.master_addr);
  env_strings.push_back(fmt::format("MASTER_PORT={}", o.master_port));
  env_strings.push_back(fmt::format("UCMOH_WORKER_TIMEOUT={}", o.timeout.count()));
  env_strings.push_back(fmt::format("{}={}", kLauncherVariable, ::getpid()));
  std::vector<char*> args, env;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  for (const auto& e : env_strings) env.push_back(const_cast<char*>(e.c_str()));
  args.push_back(nullptr);
  env.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, "/proc/self/exe", &actions, nullptr, args.data(), env.data());
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return Status::IOError(fmt::format("--workers: cannot start rank {}: {}", o.rank, std::strerror(rc)));
  return pid;
}

// A local rank dies with the rank 0 that started it (PR_SET_PDEATHSIG). Gloo
// would notice the closed sockets too, but only at the rank's next collective
// and only if nothing in between waits on the store: on a loaded machine that
// left ranks running for tens of seconds after a SIGKILLed rank 0. Ranks that
// torchrun started (no launcher variable) are left to the collectives.
Status TieToLauncher() {
  const char* launcher = std::getenv(kLauncherVariable);
  if (launcher == nullptr) return Status::Ok();
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (std::to_string(::getppid()) != launcher)  // it died before prctl took effect
    return Status::Internal(fmt::format("--workers: rank 0 (pid {}) stopped before this rank started", launcher));
  return Status::Ok();
}

// Whether a local rank has stopped (looked at, not reaped: Explain says how).
Status NoneStopped(const std::vector<pid_t>& children) {
  for (pid_t pid : children) {
    siginfo_t info{};
    if (::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid)
      return Status::IOError("a local rank stopped before the group formed");
  }
  return Status::Ok();
}

std::string ExitDescription(int rank, pid_t pid, int wait_status) {
  if (WIFSIGNALED(wait_status))
    return fmt::format("rank {} (pid {}) was killed by signal {}", rank, pid, WTERMSIG(wait_status));
  return fmt::format("rank {} (pid {}) exited with status {}", rank, pid, WEXITSTATUS(wait_status));
}

}  // namespace

void WorkerFlags::Add(CLI::App& sub) {
  sub.add_option("--workers", workers,
                 "Train data-parallel in this many local processes (c10d Gloo); the torchrun "
                 "environment (RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT) spreads it over hosts instead")
      ->check(CLI::Range(1, 256))
      ->capture_default_str();
  sub.add_option("--worker-timeout", timeout_seconds,
                 "Seconds a worker waits for the others before the job fails")
      ->check(CLI::Range(1, 86400))
      ->capture_default_str();
}

Expected<std::unique_ptr<WorkerRun>> WorkerRun::Start(const GlobalOptions& global, const WorkerFlags& flags) {
  auto run = std::unique_ptr<WorkerRun>(new WorkerRun);
  auto from_env = WorkerGroupOptionsFromEnvironment();
  if (!from_env.ok()) return from_env.status();
  WorkerGroupOptions o;
  if (*from_env) {
    o = **from_env;
    if (Status tied = TieToLauncher(); !tied.ok()) return tied;
  } else if (flags.workers > 1) {
    auto port = FreeLoopbackPort();
    if (!port.ok()) return port.status();
    o.world_size = flags.workers;
    o.master_port = *port;
    o.timeout = std::chrono::seconds(flags.timeout_seconds);
    for (int rank = 1; rank < o.world_size; ++rank) {
      WorkerGroupOptions child = o;
      child.rank = rank;
      auto pid = SpawnRank(global.argv, child);
      if (!pid.ok()) return pid.status();
      run->children_.push_back(*pid);
    }
    o.peers_alive = [children = run->children_] { return NoneStopped(children); };
  } else {
    return run;
  }
  auto group = WorkerGroup::Join(o);
  if (!group.ok()) return run->Explain(group.status());
  run->group_ = *group;
  return run;
}

Status WorkerRun::Finish() {
  std::string failures;
  for (size_t i = 0; i < children_.size(); ++i) {
    int wait_status = 0;
    if (::waitpid(children_[i], &wait_status, 0) == children_[i] &&
        !(WIFEXITED(wait_status) && WEXITSTATUS(wait_status) == 0))
      failures += (failures.empty() ? "" : "; ") + ExitDescription(int(i) + 1, children_[i], wait_status);
  }
  children_.clear();
  if (!failures.empty()) return Status::Internal("a local worker failed: " + failures);
  return Status::Ok();
}

Status WorkerRun::Explain(const Status& status) {
  // A peer's socket closes while the kernel tears the process down, a moment
  // before its exit status can be collected: give a dying worker 2 s.
  std::string stopped;
  for (int tries = 0; tries < 20 && stopped.empty() && !children_.empty(); ++tries) {
    if (tries > 0) ::usleep(100 * 1000);
    for (size_t i = 0; i < children_.size(); ++i) {
      int wait_status = 0;
      if (children_[i] > 0 && ::waitpid(children_[i], &wait_status, WNOHANG) == children_[i]) {
        stopped += (stopped.empty() ? "" : "; ") + ExitDescription(int(i) + 1, children_[i], wait_status);
        children_[i] = -1;
      }
    }
  }
  return status.WithDetail(stopped);
}

WorkerRun::~WorkerRun() {
  for (pid_t pid : children_)
    if (pid > 0) ::kill(pid, SIGTERM);
  for (pid_t pid : children_)
    if (pid > 0) ::waitpid(pid, nullptr, 0);
}

}  // namespace ucmoh::cli
