// A child process with pipes to its stdin and stdout, for the tests that need
// a second process (busy lock, kill -9 during commits).
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace ucmoh::registry::testing {

class ChildProcess {
 public:
  explicit ChildProcess(const std::vector<std::string>& argv);
  ~ChildProcess();  // kills (SIGKILL) and reaps a child still running
  bool started() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }

  // Reads stdout until a full line arrives or timeout_ms passes ("" then).
  std::string ReadLine(int timeout_ms);
  // Everything left on stdout until EOF (call after the child died).
  std::string ReadRest();
  void CloseStdin();
  void Kill(int signal);
  // Waits for exit; returns the raw wait status.
  int Wait();

 private:
  pid_t pid_ = -1;
  int in_fd_ = -1;
  int out_fd_ = -1;
  std::string buffer_;
};

}  // namespace ucmoh::registry::testing
