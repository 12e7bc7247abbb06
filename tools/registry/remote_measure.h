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

// What `registry measure` is asked, here or on hosts.
struct MeasureRequest {
  std::string intrinsic, suite = "resnet50", output;
  int64_t per_task = 200;
  int64_t max_tasks = 0;  // 0: every task of the suite
  uint64_t seed = 1;
  MeasureOptions options;
  bool quiet = false;
  std::vector<std::string> hosts;  // measure there over ssh; none: on this host
  std::string ssh_config;          // for `ssh -F`; "" for the user's own
  std::string measurer_dir;        // where ucmoh-measure-<arch> binaries are; "" for beside this executable
};

// Measures `request` on its hosts; `target` is the intrinsic's plugin's
// target name. The process exit code: 0 when every program is in the output.
int RunRemoteMeasure(const MeasureRequest& request, const std::string& target);

// The architecture of the hosts whose ucmoh-measure has a target's kernels
// (`uname -m`: "x86_64" for x86, "aarch64" for arm), "" for a target that
// `registry measure --host` cannot measure.
std::string MeasurerArch(const std::string& target);

// A "no records for INTRINSIC" error, with `registry measure INTRINSIC
// --host USER@HOST` added where ucmoh-measure can measure it elsewhere.
Status WithRemoteMeasureHint(const Status& status, const PluginSet& plugins, const std::string& intrinsic);

}  // namespace ucmoh::cli
