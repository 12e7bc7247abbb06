#include "metaschedule_export.h"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <vector>

extern char** environ;

namespace ucmoh::cli {

namespace {

namespace fs = std::filesystem;

// Where libucmoh and the Python package sit relative to this executable:
// build/bin/registry -> build/lib, <repo>/python; PREFIX/bin -> PREFIX/lib.
std::vector<std::string> ChildEnvironment() {
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) env.emplace_back(*e);
  std::error_code ec;
  const fs::path bin = fs::read_symlink("/proc/self/exe", ec).parent_path();
  if (ec) return env;
  const fs::path library = bin.parent_path() / "lib" / "libucmoh.so.1";
  if (!std::getenv("UCMOH_LIBRARY") && fs::exists(library)) env.push_back("UCMOH_LIBRARY=" + library.string());
  const fs::path package = bin.parent_path().parent_path() / "python";
  if (fs::exists(package / "ucmoh" / "tvm")) {
    const char* path = std::getenv("PYTHONPATH");
    std::string value = package.string() + (path && *path ? std::string(":") + path : "");
    env.erase(std::remove_if(env.begin(), env.end(), [](const std::string& e) { return e.rfind("PYTHONPATH=", 0) == 0; }),
              env.end());
    env.push_back("PYTHONPATH=" + value);
  }
  return env;
}

}  // namespace

Status ExportMetaScheduleDatabase(const std::string& database_dir, const std::string& output,
                                  const ExportOptions& options) {
  std::string python = options.python;
  if (python.empty()) python = std::getenv("UCMOH_PYTHON") ? std::getenv("UCMOH_PYTHON") : "python3";
  std::vector<std::string> args = {python, "-m", "ucmoh.tvm.database", database_dir, "-o", output};
  std::vector<std::string> env = ChildEnvironment();
  std::vector<char*> argv, envp;
  for (auto& a : args) argv.push_back(a.data());
  for (auto& e : env) envp.push_back(e.data());
  argv.push_back(nullptr);
  envp.push_back(nullptr);
  pid_t pid = 0;
  if (int error = posix_spawnp(&pid, python.c_str(), nullptr, nullptr, argv.data(), envp.data()))
    return Status::IOError("cannot run " + python + ": " + std::strerror(error) + " (--python names the interpreter with TVM)");
  int status = 0;
  if (waitpid(pid, &status, 0) < 0) return Status::IOError("waiting for " + python + ": " + std::strerror(errno));
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return Status::InvalidArgument(database_dir + ": exporting the MetaSchedule database failed (" + python +
                                   " -m ucmoh.tvm.database, exit " +
                                   std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) + ", see above)");
  return Status::Ok();
}

}  // namespace ucmoh::cli
