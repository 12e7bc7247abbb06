// Runs and times one program of the GEMM family on this host: the plan the
// plugin lowers, the target's micro-kernels under the blocked driver, a
// pinned thread team, and the timing rule of docs/data.md. Every CPU target
// measures through this one class (x86 in its plugin, arm in its plugin on an
// aarch64 host, and both in the standalone ucmoh-measure binary), so a
// record means the same thing whichever way it was made.
#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "ucmoh/cpu_gemm/cpu_gemm_plugin.h"
#include "ucmoh/cpu_gemm/micro_kernel.h"

namespace ucmoh::cpu_gemm {

struct GemmOperands;
class ThreadTeam;

// Ok when this CPU (`host_model`, for the message) executes the intrinsic's
// kernels: the one check both the measurer and `ucmoh-measure` make.
Status KernelsRunOnThisCpu(const KernelLibrary& kernels, const std::string& host_model, const std::string& intrinsic);

class CpuGemmMeasurer {
 public:
  // `plugin` plans the programs and names the target; its Target().hardware
  // is what records carry. `host` is the full reading of this machine (all
  // its flags), for provenance. Both must outlive the measurer.
  CpuGemmMeasurer(const CpuGemmPlugin& plugin, HardwareParams host, const KernelLibrary& kernels);
  ~CpuGemmMeasurer();

  // Ok when this CPU executes the intrinsic's kernels.
  Status CanRun(const std::string& intrinsic) const;

  // One measurement at a time; the operands of the last task are kept, so
  // measuring a task's programs one after another allocates once.
  Expected<Record> Measure(const Task& task, const std::string& intrinsic, const ParamMap& schedule,
                           const MeasureOptions& options) const;

 private:
  Expected<std::shared_ptr<GemmOperands>> OperandsFor(const GemmPlan& plan) const;
  Record MakeRecord(const Task& task, const std::string& intrinsic, const ParamMap& schedule,
                    const GemmPlan& plan) const;

  const CpuGemmPlugin& plugin_;
  HardwareParams host_;
  const KernelLibrary& kernels_;
  mutable std::mutex mutex_;
  mutable std::string operands_key_;
  mutable std::shared_ptr<GemmOperands> operands_;
  mutable std::unique_ptr<ThreadTeam> team_;
};

}  // namespace ucmoh::cpu_gemm
