// One measuring host reached over OpenSSH (`ssh`, BatchMode: never a
// password prompt): commands run there, and a long-lived session whose
// stdin / stdout carry ucmoh-measure's program and record lines. Hosts are
// named as ssh names them (USER@HOST, or a Host of ~/.ssh/config or of
// --ssh-config), so keys, ports and jump hosts stay ssh's business.
#pragma once

#include <boost/process.hpp>
#include <memory>
#include <string>
#include <vector>

#include "ucmoh/status.h"

namespace ucmoh::cli {

class SshHost {
 public:
  // `config`: an ssh_config file for `ssh -F`, or "" for the user's own.
  // `control_dir`: where ssh keeps this run's master connections (one per
  // host, shared by every command and session to it, so only the first
  // pays for the handshake); "" for a connection per command.
  SshHost(std::string name, std::string config, std::string control_dir = "");

  const std::string& name() const { return name_; }

  // Runs a shell command there with `input` on its stdin; its stdout, or an
  // error with the last line it wrote on stderr.
  Expected<std::string> Run(const std::string& command, const std::string& input = "") const;

  // Makes sure the executable at `local_path` is on the host as
  // `~/.cache/ucmoh/NAME-SHA16` (copied once, atomically) and returns that
  // remote path, for use in commands.
  Expected<std::string> Install(const std::string& local_path, const std::string& name) const;

  // The argv of `ssh ... HOST -- COMMAND`.
  std::vector<std::string> SshArgs(const std::string& command) const;

 private:
  std::string name_, config_, control_dir_;
};

// A private folder for master connections, removed with the masters in it.
class SshControlDir {
 public:
  SshControlDir();
  ~SshControlDir();  // closes every master and removes the folder
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// A command running on a host with pipes to its stdin and stdout; stderr
// goes to a file, read back when it fails.
class SshSession {
 public:
  static Expected<std::unique_ptr<SshSession>> Start(const SshHost& host, const std::string& command);
  ~SshSession();

  // Writes text to the command's stdin; false once the host is gone.
  bool Write(const std::string& text);
  // The next whole line of its stdout; false at the end or on a cut-off line.
  bool ReadLine(std::string& line);
  // Closes stdin and waits: Ok when it exited 0, else the reason.
  Status Finish();
  // Why it stopped (after ReadLine or Write failed): the exit and the last
  // line of stderr.
  Status Failure();
  // Stops it now (it sent something it should not have) and returns `reason`.
  Status Abort(const Status& reason);

 private:
  SshSession(const SshHost& host, std::string stderr_path);

  const SshHost& host_;
  std::string stderr_path_;
  boost::process::opstream in_;
  boost::process::ipstream out_;
  boost::process::child child_;
};

}  // namespace ucmoh::cli
