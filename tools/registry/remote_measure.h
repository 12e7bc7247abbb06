// `registry measure INTRINSIC --host USER@HOST [--host ...]`: measurement on
// other machines over ssh. Each host gets the ucmoh-measure binary of its
// architecture (copied once), is probed (hardware, may it time?), and serves
// chunks of programs from one shared queue; whole records stream back into
// the output file as they are measured. Resumable like local measurement: a
// program already in the file is not sent again. A host that dies or is cut
// off loses only its unfinished programs, which go back to the queue for the
// hosts still alive; with none left, the run stops and says how to resume.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ucmoh/plugin.h"
#include "ucmoh/plugin_loader.h"

namespace ucmoh::cli {

struct RemoteMeasureArgs {
  std::string intrinsic, target, suite, output;
  int64_t per_task = 200, max_tasks = 0;
  uint64_t seed = 1;
  MeasureOptions options;
  std::vector<std::string> hosts;
  std::string ssh_config;    // for `ssh -F`; "" for the user's own
  std::string measurer_dir;  // where ucmoh-measure-<arch> binaries are; "" for beside this executable
  int64_t chunk = 16;        // programs per chunk a host takes from the queue
  bool quiet = false;
};

// The process exit code: 0 when every program is in the output file.
int RunRemoteMeasure(const RemoteMeasureArgs& args);

// The targets ucmoh-measure has kernels for (x86 on x86-64 hosts, arm on
// aarch64 hosts): those whose intrinsics `registry measure --host` measures.
bool RemoteMeasurable(const std::string& target);

// A "no records for INTRINSIC" error, with `registry measure INTRINSIC
// --host USER@HOST` added where ucmoh-measure can measure it elsewhere.
Status WithRemoteMeasureHint(const Status& status, const PluginSet& plugins, const std::string& intrinsic);

}  // namespace ucmoh::cli
