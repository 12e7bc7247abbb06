#include "ucmoh/cpu_gemm/gemm_plan.h"

#include <algorithm>

#include "ucmoh/cpu_gemm/schedule_validation.h"

namespace ucmoh::cpu_gemm {

namespace {

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

DimPlan PlanDim(GemmDim dim, int64_t elements, int64_t unit_elements, int64_t block_elements,
                int64_t threads) {
  DimPlan plan;
  plan.dim = dim;
  plan.unit_elements = unit_elements;
  plan.total_units = CeilDiv(elements, unit_elements);
  plan.units_per_thread = plan.total_units / threads;  // validation made this exact
  plan.block_units = std::min(block_elements / unit_elements, plan.units_per_thread);
  const int64_t full = plan.units_per_thread / plan.block_units;
  const int64_t tail = plan.units_per_thread % plan.block_units;
  plan.runs.push_back(BlockRun{full, plan.block_units, false});
  if (tail > 0) plan.runs.push_back(BlockRun{1, tail, true});
  return plan;
}

}  // namespace

const DimPlan& GemmPlan::dim(GemmDim d) const {
  switch (d) {
    case GemmDim::kM: return m;
    case GemmDim::kN: return n;
    case GemmDim::kK: return k;
  }
  return m;
}

int GemmPlan::LoopLevel(GemmDim d) const {
  for (int level = 0; level < 3; ++level) {
    if (schedule.loop_order[static_cast<size_t>(level)] == d) return level;
  }
  return 0;
}

int GemmPlan::PackALevel() const { return std::max(LoopLevel(GemmDim::kM), LoopLevel(GemmDim::kK)); }
int GemmPlan::PackBLevel() const { return std::max(LoopLevel(GemmDim::kK), LoopLevel(GemmDim::kN)); }

int64_t ParallelTiles(const GemmProblem& problem, const GemmSchedule& schedule,
                      const IsaProfile& profile) {
  if (schedule.parallel == GemmDim::kN) {
    return CeilDiv(problem.n, std::max<int64_t>(1, schedule.nr_vec * profile.lanes));
  }
  return CeilDiv(problem.m, std::max<int64_t>(1, schedule.mr));
}

Expected<GemmPlan> MakeGemmPlan(const GemmProblem& problem, const GemmSchedule& schedule,
                                const IsaProfile& profile) {
  UCMOH_RETURN_IF_ERROR(ValidateScheduleForProblem(schedule, profile, problem));
  GemmPlan plan;
  plan.problem = problem;
  plan.schedule = schedule;
  plan.profile = profile;
  plan.nr = schedule.nr_vec * profile.lanes;
  const int64_t m_threads = schedule.parallel == GemmDim::kM ? schedule.threads : 1;
  const int64_t n_threads = schedule.parallel == GemmDim::kN ? schedule.threads : 1;
  plan.m = PlanDim(GemmDim::kM, problem.m, schedule.mr, schedule.mc, m_threads);
  plan.n = PlanDim(GemmDim::kN, problem.n, plan.nr, schedule.nc, n_threads);
  plan.k = PlanDim(GemmDim::kK, problem.k, profile.k_group, schedule.kc, 1);
  return plan;
}

}  // namespace ucmoh::cpu_gemm
