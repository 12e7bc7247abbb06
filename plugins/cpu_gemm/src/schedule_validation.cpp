#include "ucmoh/cpu_gemm/schedule_validation.h"

#include <string>

#include "ucmoh/cpu_gemm/gemm_plan.h"

namespace ucmoh::cpu_gemm {

namespace {

using std::to_string;

Status Invalid(const std::string& key, const std::string& why) {
  return Status::InvalidArgument("schedule key '" + key + "' " + why);
}

Status CheckRegisterTile(const GemmSchedule& s, const IsaProfile& p) {
  if (s.mr < 1) return Invalid("mr", "must be >= 1, got " + to_string(s.mr));
  if (s.nr_vec < 1) return Invalid("nr_vec", "must be >= 1, got " + to_string(s.nr_vec));
  const int64_t accumulators = s.mr * s.nr_vec;
  const int64_t needed = accumulators + OperandRegisters(s.nr_vec);
  if (needed > p.vector_registers) {
    return Invalid("mr", "and 'nr_vec' exceed the register budget: mr=" + to_string(s.mr) +
                             " x nr_vec=" + to_string(s.nr_vec) + " = " + to_string(accumulators) +
                             " accumulators + " + to_string(OperandRegisters(s.nr_vec)) +
                             " operand registers > " + to_string(p.vector_registers) +
                             " vector registers of " + p.intrinsic);
  }
  return Status::Ok();
}

// A cache block must be a positive whole number of `unit`s (what the key's
// block is made of, e.g. "mr=6").
Status CheckBlock(const std::string& key, int64_t block, int64_t unit, const std::string& unit_name) {
  if (block < 1 || block % unit != 0) {
    return Invalid(key, "must be a positive multiple of " + unit_name + "=" + to_string(unit) +
                            ", got " + to_string(block));
  }
  return Status::Ok();
}

Status CheckKUnroll(int64_t k_unroll) {
  for (int64_t allowed = 1; allowed <= kMaxKUnroll; allowed *= 2) {
    if (k_unroll == allowed) return Status::Ok();
  }
  return Invalid("k_unroll", "must be 1, 2, 4 or 8, got " + to_string(k_unroll));
}

Status CheckLoopOrder(const GemmSchedule& s) {
  bool seen[3] = {false, false, false};
  for (GemmDim dim : s.loop_order) seen[static_cast<int>(dim)] = true;
  if (!(seen[0] && seen[1] && seen[2])) {
    return Invalid("loop_order", "must be a permutation of \"mnk\", got \"" + s.LoopOrderString() + "\"");
  }
  return Status::Ok();
}

Status CheckThreads(const GemmSchedule& s, const IsaProfile& p) {
  if (s.parallel == GemmDim::kK) return Invalid("parallel", "must be m or n, got k");
  if (s.threads < 1 || s.threads > p.cores) {
    return Invalid("threads", "must be between 1 and the " + to_string(p.cores) + " cores, got " +
                                  to_string(s.threads));
  }
  return Status::Ok();
}

}  // namespace

Status ValidateSchedule(const GemmSchedule& s, const IsaProfile& p) {
  UCMOH_RETURN_IF_ERROR(CheckRegisterTile(s, p));
  UCMOH_RETURN_IF_ERROR(CheckKUnroll(s.k_unroll));
  UCMOH_RETURN_IF_ERROR(CheckBlock("mc", s.mc, s.mr, "mr"));
  UCMOH_RETURN_IF_ERROR(CheckBlock("nc", s.nc, s.nr_vec * p.lanes, "nr"));
  UCMOH_RETURN_IF_ERROR(CheckBlock("kc", s.kc, p.k_group * s.k_unroll, "k_group*k_unroll"));
  UCMOH_RETURN_IF_ERROR(CheckLoopOrder(s));
  return CheckThreads(s, p);
}

Status ValidateScheduleForProblem(const GemmSchedule& s, const IsaProfile& p,
                                  const GemmProblem& problem) {
  UCMOH_RETURN_IF_ERROR(ValidateSchedule(s, p));
  const int64_t tiles = ParallelTiles(problem, s, p);
  if (tiles % s.threads != 0) {
    return Invalid("threads", "must divide the " + to_string(tiles) + " register tiles of the parallel " +
                                  std::string(1, DimLetter(s.parallel)) + " dimension, got " +
                                  to_string(s.threads));
  }
  return Status::Ok();
}

}  // namespace ucmoh::cpu_gemm
