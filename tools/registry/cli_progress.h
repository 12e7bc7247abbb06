// A one-line progress display on stderr, shown only when stderr is a terminal.
#pragma once

#include <unistd.h>

#include <cstdio>
#include <string>

namespace ucmoh::cli {

class ProgressLine {
 public:
  explicit ProgressLine(bool enabled) : enabled_(enabled && ::isatty(STDERR_FILENO)) {}
  ~ProgressLine() { Finish(); }
  void Show(const std::string& text) {
    if (!enabled_) return;
    std::fprintf(stderr, "\r\033[K%s", text.c_str());
    std::fflush(stderr);
    shown_ = true;
  }
  void Finish() {
    if (shown_) std::fprintf(stderr, "\n");
    shown_ = false;
  }

 private:
  bool enabled_;
  bool shown_ = false;
};

}  // namespace ucmoh::cli
