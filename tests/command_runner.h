// Runs a shell command for the CLI tests and captures its exit code and its
// stdout and stderr together.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <string>

namespace ucmoh::testing {

struct CommandResult {
  int rc;
  std::string out;
};

// A fresh folder for this test process: TMPDIR/ucmoh_TAG_PID, emptied once.
inline std::string ScratchDir(const std::string& tag) {
  auto p = std::filesystem::temp_directory_path() / ("ucmoh_" + tag + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(p);
  std::filesystem::create_directories(p);
  return p.string();
}

inline CommandResult RunCommand(const std::string& command) {
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (!pipe) return {-1, "popen failed: " + command};
  std::string out;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) out.append(buf.data(), n);
  const int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

}  // namespace ucmoh::testing
