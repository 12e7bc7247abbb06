// The correctness sweep of a target's micro-kernels: sampled schedules over
// shapes with tails in every dimension, each run through the blocked driver
// and checked element by element against the scalar reference. The x86
// tests run it natively; ucmoh-measure `check` runs it for aarch64 under
// qemu-user in CI, where it is the only thing an emulated run may do.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ucmoh/cpu_gemm/gemm_problem.h"
#include "ucmoh/cpu_gemm/isa_profile.h"
#include "ucmoh/cpu_gemm/micro_kernel.h"
#include "ucmoh/cpu_gemm/thread_team.h"
#include "ucmoh/status.h"

namespace ucmoh::cpu_gemm {

// Odd and even shapes, tails in every dimension (not multiples of any tile,
// k not a multiple of the k-group), two batched.
std::vector<GemmProblem> SweepShapes();

struct SweepResult {
  int64_t shapes = 0;
  int64_t schedules = 0;   // programs run and checked
  int64_t mismatches = 0;  // programs whose C differs from the reference
  std::string first_mismatch;
};

// Checks `schedules` sampled schedules spread over `shapes` (fewer where the
// shapes have fewer distinct ones: the result says how many ran). Fails only
// when a schedule cannot be sampled, planned or run.
Expected<SweepResult> SweepKernels(const IsaProfile& profile, const KernelLibrary& kernels,
                                   const std::vector<GemmProblem>& shapes, int64_t schedules, uint64_t seed,
                                   ThreadTeam& team);

}  // namespace ucmoh::cpu_gemm
