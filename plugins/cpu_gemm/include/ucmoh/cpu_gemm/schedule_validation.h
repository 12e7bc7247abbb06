// Which schedules are valid: for an intrinsic on a machine (register budget,
// block multiples, threads <= cores), and for one problem (threads split the
// parallel dimension into equal ranges of whole register tiles). Every error
// is an InvalidArgument that names the offending schedule key.
#pragma once

#include "ucmoh/cpu_gemm/gemm_problem.h"
#include "ucmoh/cpu_gemm/gemm_schedule.h"
#include "ucmoh/cpu_gemm/isa_profile.h"
#include "ucmoh/status.h"

namespace ucmoh::cpu_gemm {

constexpr int64_t kMaxKUnroll = 8;

Status ValidateSchedule(const GemmSchedule& schedule, const IsaProfile& profile);

// ValidateSchedule plus the problem-dependent rule on threads.
Status ValidateScheduleForProblem(const GemmSchedule& schedule, const IsaProfile& profile,
                                  const GemmProblem& problem);

}  // namespace ucmoh::cpu_gemm
