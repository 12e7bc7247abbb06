// The machine an AutoTVM log was measured on, from its target string
// ("llvm -mcpu=skylake-avx512 -model=platinum-8124m"). A log names its CPU
// only by `-model`, so the hardware comes from a table of known models
// (docs/records.md says how to add one); anything else is refused by name.
#pragma once

#include <string>

#include "ucmoh/status.h"
#include "ucmoh/target.h"

namespace ucmoh::x86 {

struct AutoTvmMachine {
  HardwareParams hardware;
  // TVM's runtime default: one thread per physical core (hardware_concurrency / 2
  // on x86), which is what the log's measurements ran with.
  int64_t threads = 1;
  std::string instance;  // where such logs come from, for provenance ("AWS c5.9xlarge")
};

Expected<AutoTvmMachine> AutoTvmMachineOf(const std::string& target);

}  // namespace ucmoh::x86
