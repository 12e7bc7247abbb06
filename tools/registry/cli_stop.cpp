#include "cli_stop.h"

#include <csignal>

namespace ucmoh::cli {

namespace {
volatile std::sig_atomic_t g_stop = 0;
extern "C" void OnStopSignal(int) { g_stop = 1; }
}  // namespace

void StopOnSignals() {
  std::signal(SIGINT, OnStopSignal);
  std::signal(SIGTERM, OnStopSignal);
}

bool StopRequested() { return g_stop != 0; }

}  // namespace ucmoh::cli
