// ucmoh-measure's subcommands, one file each (docs/arm.md, "The measurer").
// Each returns the process exit code: 0 done, 1 failed (a mismatch, a
// program that did not run), 2 bad input, 3 refused (this host must not
// time, or lacks the intrinsic).
#pragma once

#include <cstdint>
#include <string>

#include "host_target.h"
#include "ucmoh/plugin.h"

namespace ucmoh::measure {

constexpr int kExitFailed = 1;
constexpr int kExitBadInput = 2;
constexpr int kExitRefused = 3;

// Prints `error: what` on stderr and returns `code`.
int Fail(const Status& status, int code);

// One JSON line: arch, emulation, the target's hardware, whether it can measure.
int Probe(const HostTarget& target, const std::string& intrinsic);

struct PlanArgs {
  std::string suite = "resnet50";
  int64_t per_task = 200, max_tasks = 0;
  uint64_t seed = 1;
};
// The programs `registry measure` would run here, one program line each.
int Plan(const HostTarget& target, const std::string& intrinsic, const PlanArgs& args);

// Reads program lines from stdin in chunks (a blank line or the end of input
// ends one), measures each chunk and writes one record line per program to
// stdout, flushed as each is done. Refuses under emulation.
int Serve(const HostTarget& target, const std::string& intrinsic, const MeasureOptions& options);

// The correctness sweep (kernel_sweep.h); never times, so it runs under
// emulation too.
int Check(const HostTarget& target, const std::string& intrinsic, int64_t schedules, uint64_t seed);

}  // namespace ucmoh::measure
