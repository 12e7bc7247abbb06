// check: the kernels' correctness sweep against the scalar reference.
#include <cstdio>

#include "commands.h"
#include "ucmoh/cpu_gemm/host_cpu.h"
#include "ucmoh/cpu_gemm/kernel_sweep.h"

namespace ucmoh::measure {

int Check(const HostTarget& target, const std::string& intrinsic, int64_t schedules, uint64_t seed) {
  const Status can = CanRun(target, intrinsic);
  if (!can.ok()) return Fail(can, kExitRefused);
  auto profile = target.plugin.Profile(intrinsic, target.plugin.Target().hardware);
  if (!profile.ok()) return Fail(profile.status(), kExitBadInput);
  cpu_gemm::ThreadTeam team(static_cast<int>(cpu_gemm::HostCores()));
  auto result = cpu_gemm::SweepKernels(*profile, *target.kernels, cpu_gemm::SweepShapes(), schedules, seed, team);
  if (!result.ok()) return Fail(result.status(), kExitFailed);
  const char* rule = profile->input_bytes == 1 ? "bit-exact integer sums"
                     : profile->input_bytes == 4 ? "bit-exact: one fp32 FMA chain per element, in k order"
                                                 : "within (K+1) * 2^-22 * sum|a*b|";
  std::printf("check %s (%s%s): %lld schedules over %lld shapes, %lld mismatches (%s)\n", intrinsic.c_str(),
              target.arch.c_str(), target.emulation.empty() ? "" : ", emulated",
              static_cast<long long>(result->schedules), static_cast<long long>(result->shapes),
              static_cast<long long>(result->mismatches), rule);
  if (result->mismatches > 0) return Fail(Status::Internal("first mismatch: " + result->first_mismatch), kExitFailed);
  if (result->schedules < schedules) {
    return Fail(Status::Internal("only " + std::to_string(result->schedules) + " of " + std::to_string(schedules) +
                                 " schedules could be sampled"),
                kExitFailed);
  }
  return 0;
}

}  // namespace ucmoh::measure
