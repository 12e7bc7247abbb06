#include "tvm_python.h"

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

extern char** environ;

namespace ucmoh::cli {

namespace {

namespace fs = std::filesystem;

// The ucmoh Python package beside this executable: <repo>/python from
// build/bin, or where `cmake --install` put it from PREFIX/bin
// (UCMOH_BIN_TO_PYTHON, e.g. ../lib/python3.11/dist-packages); "" when neither.
std::string PythonPackageDir(const fs::path& bin) {
  for (const fs::path& dir : {bin.parent_path().parent_path() / "python", bin / UCMOH_BIN_TO_PYTHON}) {
    std::error_code ec;
    if (fs::exists(dir / "ucmoh" / "tvm", ec)) return fs::weakly_canonical(dir, ec).string();
  }
  return "";
}

// Where libucmoh and the Python package sit relative to this executable:
// build/bin/registry -> build/lib, <repo>/python; PREFIX/bin -> PREFIX/lib and
// the installed package.
std::vector<std::string> ChildEnvironment() {
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) env.emplace_back(*e);
  std::error_code ec;
  const fs::path bin = fs::read_symlink("/proc/self/exe", ec).parent_path();
  if (ec) return env;
  const fs::path library = bin.parent_path() / "lib" / "libucmoh.so.1";
  if (!std::getenv("UCMOH_LIBRARY") && fs::exists(library)) env.push_back("UCMOH_LIBRARY=" + library.string());
  const std::string package = PythonPackageDir(bin);
  if (!package.empty()) {
    const char* path = std::getenv("PYTHONPATH");
    std::string value = package + (path && *path ? std::string(":") + path : "");
    env.erase(std::remove_if(env.begin(), env.end(), [](const std::string& e) { return e.rfind("PYTHONPATH=", 0) == 0; }),
              env.end());
    env.push_back("PYTHONPATH=" + value);
  }
  return env;
}

// Runs argv with `env` and waits; `quiet` sends its output to /dev/null.
// The child dies with this process (PR_SET_PDEATHSIG): a `registry collect`
// killed with SIGKILL must not leave its collector measuring on. Returns the
// exit status (128 + signal when killed).
Expected<int> Spawn(std::vector<std::string> args, std::vector<std::string> env, bool quiet) {
  std::vector<char*> argv, envp;
  for (auto& a : args) argv.push_back(a.data());
  for (auto& e : env) envp.push_back(e.data());
  argv.push_back(nullptr);
  envp.push_back(nullptr);
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) return Status::IOError(std::string("cannot fork: ") + std::strerror(errno));
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);  // the parent died before prctl took effect
    if (quiet) {
      const int null = open("/dev/null", O_WRONLY);
      dup2(null, STDOUT_FILENO);
      dup2(null, STDERR_FILENO);
    }
    execvpe(argv[0], argv.data(), envp.data());
    _exit(127);  // not found: the caller reports it
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return Status::IOError("waiting for " + args[0] + ": " + std::strerror(errno));
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127 && !quiet)
    return Status::NotFound("cannot run " + args[0]);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace

std::string TvmPython(const TvmPythonOptions& options) {
  if (!options.python.empty()) return options.python;
  if (const char* python = std::getenv("UCMOH_PYTHON"); python && *python) return python;
  const fs::path venv = fs::path(UCMOH_SOURCE_DIR) / ".venv" / "bin" / "python";
  if (fs::exists(venv)) return venv.string();
  return "python3";
}

Expected<int> RunTvmModule(const TvmPythonOptions& options, const std::string& module,
                           const std::vector<std::string>& args) {
  const std::string python = TvmPython(options);
  auto env = ChildEnvironment();
  auto has_tvm = Spawn({python, "-c", "import numpy, tvm"}, env, /*quiet=*/true);
  if (!has_tvm.ok() || *has_tvm != 0)
    return Status::NotFound(python + " cannot import TVM: run tools/setup-tvm (it installs TVM into " +
                            std::string(UCMOH_SOURCE_DIR) + "/.venv), or name a Python with TVM (--python or UCMOH_PYTHON)");
  std::vector<std::string> argv = {python, "-m", module};
  argv.insert(argv.end(), args.begin(), args.end());
  return Spawn(argv, env, /*quiet=*/false);
}

Status ExportMetaScheduleDatabase(const std::string& database_dir, const std::string& output,
                                  const TvmPythonOptions& options) {
  auto exit = RunTvmModule(options, "ucmoh.tvm.database", {database_dir, "-o", output});
  if (!exit.ok()) return exit.status();
  if (*exit != 0)
    return Status::InvalidArgument(database_dir + ": exporting the MetaSchedule database failed (" +
                                   TvmPython(options) + " -m ucmoh.tvm.database, exit " + std::to_string(*exit) +
                                   ", see above)");
  return Status::Ok();
}

}  // namespace ucmoh::cli
