#include "ucmoh/cpu_gemm/gemm_problem.h"

namespace ucmoh::cpu_gemm {

namespace {

Expected<int64_t> PositiveInt(const ParamMap& workload, const std::string& key) {
  auto value = GetInt(workload, key);
  if (!value.ok()) return value.status();
  if (*value < 1) return Status::InvalidArgument("workload key '" + key + "' must be >= 1");
  return *value;
}

Status CheckTypeMatches(const ParamMap& workload, const std::string& key,
                        const std::string& expected, const std::string& intrinsic) {
  if (workload.find(key) == workload.end()) return Status::Ok();
  auto value = GetString(workload, key);
  if (!value.ok()) return value.status();
  if (*value != expected) {
    return Status::InvalidArgument("workload key '" + key + "' is '" + *value + "' but " +
                                   intrinsic + " takes '" + expected + "'");
  }
  return Status::Ok();
}

}  // namespace

Expected<GemmProblem> ProblemFromTask(const Task& task, const IntrinsicInfo& intrinsic) {
  GemmProblem problem;
  auto m = PositiveInt(task.workload, "m");
  if (!m.ok()) return m.status().WithContext(task.key);
  auto n = PositiveInt(task.workload, "n");
  if (!n.ok()) return n.status().WithContext(task.key);
  auto k = PositiveInt(task.workload, "k");
  if (!k.ok()) return k.status().WithContext(task.key);
  problem.m = *m;
  problem.n = *n;
  problem.k = *k;
  if (task.workload.count("batch")) {
    auto batch = PositiveInt(task.workload, "batch");
    if (!batch.ok()) return batch.status().WithContext(task.key);
    problem.batch = *batch;
  }
  UCMOH_RETURN_IF_ERROR(
      CheckTypeMatches(task.workload, "in_type", intrinsic.input_type, intrinsic.name)
          .WithContext(task.key));
  UCMOH_RETURN_IF_ERROR(
      CheckTypeMatches(task.workload, "acc_type", intrinsic.accum_type, intrinsic.name)
          .WithContext(task.key));
  return problem;
}

}  // namespace ucmoh::cpu_gemm
