#include "ucmoh/cpu_gemm/schedule_sampler.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <set>
#include <string>

#include "ucmoh/cpu_gemm/schedule_validation.h"

namespace ucmoh::cpu_gemm {

namespace {

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Uniform integer in [lo, hi] from the raw engine output (portable).
int64_t UniformInt(std::mt19937_64& rng, int64_t lo, int64_t hi) {
  const uint64_t span = static_cast<uint64_t>(hi - lo) + 1;
  return lo + static_cast<int64_t>(rng() % span);
}

// Integer in [1, hi], uniform in log scale, so small and large blocks are
// drawn equally often.
int64_t LogUniformInt(std::mt19937_64& rng, int64_t hi) {
  const double u = static_cast<double>(rng() >> 11) * 0x1.0p-53;
  const int64_t value = static_cast<int64_t>(std::floor(std::exp(u * std::log(hi + 1.0))));
  return std::clamp<int64_t>(value, 1, hi);
}

std::vector<int64_t> DivisorsUpTo(int64_t n, int64_t limit) {
  std::vector<int64_t> divisors;
  for (int64_t d = 1; d <= std::min(n, limit); ++d) {
    if (n % d == 0) divisors.push_back(d);
  }
  return divisors;
}

// The register tile: nr_vec first (no wider than N needs), then the tallest
// mr the remaining registers allow (no taller than M).
void DrawRegisterTile(std::mt19937_64& rng, const GemmProblem& problem, const IsaProfile& p,
                      GemmSchedule& s) {
  const int64_t max_nr_vec_for_budget = (p.vector_registers - 1) / 2;  // with mr = 1
  s.nr_vec = UniformInt(rng, 1, std::min(max_nr_vec_for_budget, CeilDiv(problem.n, p.lanes)));
  const int64_t max_mr = (p.vector_registers - OperandRegisters(s.nr_vec)) / s.nr_vec;
  s.mr = UniformInt(rng, 1, std::min(max_mr, problem.m));
}

// Threads from the divisors of the parallel dimension's tile count, so every
// thread gets the same number of whole tiles.
void DrawThreads(std::mt19937_64& rng, const GemmProblem& problem, const IsaProfile& p,
                 GemmSchedule& s) {
  s.parallel = UniformInt(rng, 0, 1) == 0 ? GemmDim::kM : GemmDim::kN;
  const int64_t tiles = s.parallel == GemmDim::kM ? CeilDiv(problem.m, s.mr)
                                                  : CeilDiv(problem.n, s.nr_vec * p.lanes);
  const std::vector<int64_t> choices = DivisorsUpTo(tiles, p.cores);
  s.threads = choices[static_cast<size_t>(UniformInt(rng, 0, static_cast<int64_t>(choices.size()) - 1))];
}

void DrawBlocks(std::mt19937_64& rng, const GemmProblem& problem, const IsaProfile& p,
                GemmSchedule& s) {
  const int64_t nr = s.nr_vec * p.lanes;
  const int64_t m_tiles = CeilDiv(problem.m, s.mr) / (s.parallel == GemmDim::kM ? s.threads : 1);
  const int64_t n_tiles = CeilDiv(problem.n, nr) / (s.parallel == GemmDim::kN ? s.threads : 1);
  const int64_t k_unit = p.k_group * s.k_unroll;
  s.mc = s.mr * LogUniformInt(rng, m_tiles);
  s.nc = nr * LogUniformInt(rng, n_tiles);
  s.kc = k_unit * LogUniformInt(rng, CeilDiv(problem.k, k_unit));
}

GemmSchedule DrawSchedule(std::mt19937_64& rng, const GemmProblem& problem, const IsaProfile& p) {
  static const char* const kOrders[] = {"mnk", "mkn", "nmk", "nkm", "kmn", "knm"};
  GemmSchedule s;
  DrawRegisterTile(rng, problem, p, s);
  s.k_unroll = int64_t{1} << UniformInt(rng, 0, 3);
  DrawThreads(rng, problem, p, s);
  DrawBlocks(rng, problem, p, s);
  const std::string order = kOrders[UniformInt(rng, 0, 5)];
  for (size_t i = 0; i < 3; ++i) {
    s.loop_order[i] = order[i] == 'm' ? GemmDim::kM : order[i] == 'n' ? GemmDim::kN : GemmDim::kK;
  }
  const int64_t packing = UniformInt(rng, 0, 3);
  s.pack_a = (packing & 1) != 0;
  s.pack_b = (packing & 2) != 0;
  return s;
}

}  // namespace

Expected<std::vector<GemmSchedule>> SampleGemmSchedules(const GemmProblem& problem,
                                                        const IsaProfile& profile, int64_t count,
                                                        uint64_t seed) {
  if (count < 0) return Status::InvalidArgument("schedule count must be >= 0");
  std::mt19937_64 rng(seed);
  std::set<std::string> seen;
  std::vector<GemmSchedule> schedules;
  const int64_t max_draws = 100 * count + 1000;
  for (int64_t draw = 0; draw < max_draws && static_cast<int64_t>(schedules.size()) < count; ++draw) {
    GemmSchedule s = DrawSchedule(rng, problem, profile);
    UCMOH_RETURN_IF_ERROR(ValidateScheduleForProblem(s, profile, problem)
                              .WithContext("internal: sampler drew an invalid schedule"));
    if (seen.insert(CanonicalString(ToParams(s))).second) schedules.push_back(s);
  }
  if (static_cast<int64_t>(schedules.size()) < count) {
    return Status::InvalidArgument("found only " + std::to_string(schedules.size()) +
                                   " distinct schedules of " + profile.intrinsic + " for this problem, " +
                                   std::to_string(count) + " requested");
  }
  return schedules;
}

}  // namespace ucmoh::cpu_gemm
