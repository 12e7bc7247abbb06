// Reproducible random draws from the schedule family for one problem.
#pragma once

#include <cstdint>
#include <vector>

#include "ucmoh/cpu_gemm/gemm_problem.h"
#include "ucmoh/cpu_gemm/gemm_schedule.h"
#include "ucmoh/cpu_gemm/isa_profile.h"
#include "ucmoh/status.h"

namespace ucmoh::cpu_gemm {

// Draws `count` distinct schedules, each valid for the problem, from
// std::mt19937_64(seed); the same arguments give the same list on every
// platform (the draws use the engine's raw output, not the library's
// distributions). Register tiles are kept within the problem (no tile wider
// than N rounded up to a vector, or taller than M) and blocks within one
// thread's range, so distinct schedules are distinct programs. Fails when the
// family has fewer than `count` such schedules for the problem.
Expected<std::vector<GemmSchedule>> SampleGemmSchedules(const GemmProblem& problem,
                                                        const IsaProfile& profile, int64_t count,
                                                        uint64_t seed);

}  // namespace ucmoh::cpu_gemm
