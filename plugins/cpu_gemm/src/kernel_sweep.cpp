#include "ucmoh/cpu_gemm/kernel_sweep.h"

#include <algorithm>

#include "ucmoh/cpu_gemm/gemm_driver.h"
#include "ucmoh/cpu_gemm/gemm_operands.h"
#include "ucmoh/cpu_gemm/gemm_plan.h"
#include "ucmoh/cpu_gemm/reference_gemm.h"
#include "ucmoh/cpu_gemm/gemm_schedule.h"
#include "ucmoh/cpu_gemm/schedule_sampler.h"

namespace ucmoh::cpu_gemm {

namespace {

std::string Describe(const GemmProblem& p, const GemmSchedule& s) {
  return std::to_string(p.m) + "x" + std::to_string(p.n) + "x" + std::to_string(p.k) + " batch " +
         std::to_string(p.batch) + ", schedule " + CanonicalString(ToParams(s));
}

// Runs one schedule from C = 0 and counts it into `result`.
Status CheckOne(const GemmProblem& problem, const GemmSchedule& schedule, const IsaProfile& profile,
                const KernelLibrary& kernels, const std::shared_ptr<GemmOperands>& operands, ThreadTeam& team,
                SweepResult& result) {
  auto plan = MakeGemmPlan(problem, schedule, profile);
  if (!plan.ok()) return plan.status().WithContext(Describe(problem, schedule));
  ZeroC(*operands);
  auto runner = GemmRunner::Create(*plan, operands, kernels);
  if (!runner.ok()) return runner.status().WithContext(Describe(problem, schedule));
  (*runner)->Run(team);
  std::string first;
  ++result.schedules;
  if (CheckAgainstReference(*operands, &first) > 0 && result.mismatches++ == 0) {
    result.first_mismatch = Describe(problem, schedule) + ": " + first;
  }
  return Status::Ok();
}

}  // namespace

std::vector<GemmProblem> SweepShapes() {
  return {{37, 45, 29, 1}, {64, 48, 32, 1}, {1, 17, 3, 1},   {50, 100, 61, 2}, {23, 160, 130, 1},
          {96, 33, 7, 1},  {128, 64, 96, 1}, {31, 127, 77, 1}, {7, 200, 45, 3},  {80, 80, 80, 1},
          {45, 72, 256, 1}, {200, 24, 19, 1}};
}

Expected<SweepResult> SweepKernels(const IsaProfile& profile, const KernelLibrary& kernels,
                                   const std::vector<GemmProblem>& shapes, int64_t schedules, uint64_t seed,
                                   ThreadTeam& team) {
  SweepResult result;
  if (shapes.empty()) return result;
  // Oversample each shape, since tiny shapes have few distinct schedules.
  const int64_t per_shape = 2 * ((schedules + static_cast<int64_t>(shapes.size()) - 1) / shapes.size());
  for (size_t i = 0; i < shapes.size() && result.schedules < schedules; ++i) {
    const GemmProblem& problem = shapes[i];
    auto operands = MakeGemmOperands(problem, profile, seed + i);
    if (!operands.ok()) return operands.status();
    auto sampled = SampleGemmSchedules(problem, profile, per_shape, seed * 131 + i);
    if (!sampled.ok()) return sampled.status();
    ++result.shapes;
    const int64_t remaining_shapes = static_cast<int64_t>(shapes.size() - i);
    const int64_t quota = (schedules - result.schedules + remaining_shapes - 1) / remaining_shapes;
    const int64_t take = std::min<int64_t>(static_cast<int64_t>(sampled->size()), std::max<int64_t>(quota, 1));
    for (int64_t s = 0; s < take; ++s) {
      UCMOH_RETURN_IF_ERROR(CheckOne(problem, (*sampled)[s], profile, kernels, *operands, team, result));
    }
  }
  return result;
}

}  // namespace ucmoh::cpu_gemm
