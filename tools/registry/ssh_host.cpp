#include "ssh_host.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "ucmoh/file_bytes.h"
#include "ucmoh/sha256.h"

namespace ucmoh::cli {

namespace bp = boost::process;

namespace {

std::string LastLineOf(const std::string& path) {
  std::ifstream in(path);
  std::string line, last;
  while (std::getline(in, line))
    if (!line.empty()) last = line;
  return last;
}

std::string TempPath(const char* what) {
  char path[] = "/tmp/ucmoh-ssh-XXXXXX";
  const int fd = mkstemp(path);
  if (fd >= 0) close(fd);
  return std::string(path) + (fd >= 0 ? "" : what);
}

Status ExitStatus(const SshHost& host, int code, const std::string& stderr_path) {
  const std::string said = LastLineOf(stderr_path);
  std::remove(stderr_path.c_str());
  if (code == 0) return Status::Ok();
  // ssh itself exits 255 when it cannot connect or the connection drops.
  const std::string what = code == 255 ? "ssh failed (connection refused, lost or not allowed)"
                                       : "exited " + std::to_string(code);
  return Status::Unsupported("host " + host.name() + ": " + what + (said.empty() ? "" : ": " + said));
}

}  // namespace

SshHost::SshHost(std::string name, std::string config, std::string control_dir)
    : name_(std::move(name)), config_(std::move(config)), control_dir_(std::move(control_dir)) {}

std::vector<std::string> SshHost::SshArgs(const std::string& command) const {
  std::vector<std::string> args = {"-o", "BatchMode=yes", "-o", "ServerAliveInterval=15",
                                   "-o", "ServerAliveCountMax=4"};
  if (!config_.empty()) args.insert(args.end(), {"-F", config_});
  if (!control_dir_.empty()) {
    // The master outlives the command that opened it by at most 60 idle
    // seconds, should this process die before SshControlDir closes it.
    args.insert(args.end(), {"-o", "ControlMaster=auto", "-o", "ControlPath=" + control_dir_ + "/%C", "-o",
                             "ControlPersist=60"});
  }
  args.insert(args.end(), {name_, "--", command});
  return args;
}

Expected<std::string> SshHost::Run(const std::string& command, const std::string& input) const {
  const std::string stderr_path = TempPath("stderr");
  bp::opstream in;
  bp::ipstream out;
  std::error_code error;
  bp::child child(bp::search_path("ssh"), bp::args(SshArgs(command)), bp::std_in < in, bp::std_out > out,
                  bp::std_err > stderr_path, error);
  if (error) return Status::NotFound("cannot run ssh (install openssh-client): " + error.message());
  in << input << std::flush;
  in.pipe().close();
  std::string output((std::istreambuf_iterator<char>(out)), std::istreambuf_iterator<char>());
  child.wait();
  UCMOH_RETURN_IF_ERROR(ExitStatus(*this, child.exit_code(), stderr_path));
  return output;
}

Expected<std::string> SshHost::Install(const std::string& local_path, const std::string& name) const {
  auto bytes = ReadFileBytes(local_path);
  if (!bytes.ok()) return bytes.status();
  const std::string remote = "\"$HOME\"/.cache/ucmoh/" + name + "-" + Sha256Hex(*bytes).substr(0, 16);
  auto present = Run("test -x " + remote + " && echo present || true");
  if (!present.ok()) return present.status();
  if (present->rfind("present", 0) == 0) return remote;
  const std::string temporary = remote + ".tmp.$$";
  auto copied = Run("mkdir -p \"$HOME\"/.cache/ucmoh && cat > " + temporary + " && chmod 755 " + temporary +
                        " && mv " + temporary + " " + remote,
                    *bytes);
  if (!copied.ok()) return copied.status();
  return remote;
}

SshControlDir::SshControlDir() {
  char path[] = "/tmp/ucmoh-ssh-XXXXXX";
  if (mkdtemp(path)) path_ = path;
}

SshControlDir::~SshControlDir() {
  if (path_.empty()) return;
  std::error_code error;
  for (const auto& socket : std::filesystem::directory_iterator(path_, error)) {
    bp::system(bp::search_path("ssh"), "-o", "ControlPath=" + socket.path().string(), "-O", "exit", "unused",
               bp::std_out > bp::null, bp::std_err > bp::null, bp::std_in < bp::null, error);
  }
  std::filesystem::remove_all(path_, error);
}

SshSession::SshSession(const SshHost& host, std::string stderr_path)
    : host_(host), stderr_path_(std::move(stderr_path)) {}

SshSession::~SshSession() {
  if (child_.valid() && child_.running()) child_.terminate();
  std::remove(stderr_path_.c_str());
}

Expected<std::unique_ptr<SshSession>> SshSession::Start(const SshHost& host, const std::string& command) {
  std::unique_ptr<SshSession> session(new SshSession(host, TempPath("stderr")));
  std::error_code error;
  session->child_ = bp::child(bp::search_path("ssh"), bp::args(host.SshArgs(command)), bp::std_in < session->in_,
                              bp::std_out > session->out_, bp::std_err > session->stderr_path_, error);
  if (error) return Status::NotFound("cannot run ssh (install openssh-client): " + error.message());
  return session;
}

bool SshSession::Write(const std::string& text) {
  in_ << text << std::flush;
  return static_cast<bool>(in_);
}

bool SshSession::ReadLine(std::string& line) {
  if (!std::getline(out_, line)) return false;
  return !out_.eof();  // a line cut off by the end of the stream is no line
}

Status SshSession::Finish() {
  in_.pipe().close();
  std::string rest;
  while (std::getline(out_, rest)) {
  }
  child_.wait();
  return ExitStatus(host_, child_.exit_code(), stderr_path_);
}

Status SshSession::Abort(const Status& reason) {
  if (child_.running()) child_.terminate();
  return reason;
}

Status SshSession::Failure() {
  in_.pipe().close();
  child_.wait();
  return ExitStatus(host_, child_.exit_code(), stderr_path_);
}

}  // namespace ucmoh::cli
