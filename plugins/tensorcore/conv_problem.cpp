#include "conv_problem.h"

#include <utility>
#include <vector>

#include "ucmoh/params.h"

namespace ucmoh::tensorcore {

namespace {

const char* const kConvKindKey = "conv_kind";

struct IntField {
  const char* key;
  int64_t ConvProblem::*member;
  int64_t minimum;
};

// The largest workload value taken: ResNet-class layers stay under 4,096, and
// the implicit GEMM multiplies three of these at a time (n*p*q, k*r*s), which
// this bound keeps far from int64 overflow whatever a file says.
constexpr int64_t kMaxWorkloadValue = int64_t{1} << 16;

const std::vector<IntField>& IntFields() {
  static const std::vector<IntField> kFields = {
      {"n", &ConvProblem::n, 1},           {"h", &ConvProblem::h, 1},
      {"w", &ConvProblem::w, 1},           {"c", &ConvProblem::c, 1},
      {"k", &ConvProblem::k, 1},           {"r", &ConvProblem::r, 1},
      {"s", &ConvProblem::s, 1},           {"p", &ConvProblem::p, 1},
      {"q", &ConvProblem::q, 1},           {"pad_h", &ConvProblem::pad_h, 0},
      {"pad_w", &ConvProblem::pad_w, 0},   {"stride_h", &ConvProblem::stride_h, 1},
      {"stride_w", &ConvProblem::stride_w, 1}, {"dilation_h", &ConvProblem::dilation_h, 1},
      {"dilation_w", &ConvProblem::dilation_w, 1},
  };
  return kFields;
}

int64_t OutputExtent(int64_t in, int64_t pad, int64_t filter, int64_t dilation, int64_t stride) {
  return (in + 2 * pad - dilation * (filter - 1) - 1) / stride + 1;
}

std::string PairToken(const char* name, int64_t a, int64_t b) {
  return name + std::to_string(a) + (a == b ? "" : "x" + std::to_string(b));
}

}  // namespace

void ComputeOutputSize(ConvProblem& problem) {
  problem.p = OutputExtent(problem.h, problem.pad_h, problem.r, problem.dilation_h, problem.stride_h);
  problem.q = OutputExtent(problem.w, problem.pad_w, problem.s, problem.dilation_w, problem.stride_w);
}

Status CheckOutputSize(const ConvProblem& problem) {
  ConvProblem expected = problem;
  ComputeOutputSize(expected);
  if (expected.p == problem.p && expected.q == problem.q) return Status::Ok();
  return Status::InvalidArgument(
      "output size p=" + std::to_string(problem.p) + ",q=" + std::to_string(problem.q) +
      " does not follow from h, w, r, s, padding, stride and dilation (expected p=" +
      std::to_string(expected.p) + ",q=" + std::to_string(expected.q) + ")");
}

Expected<ConvProblem> ConvProblemFromTask(const Task& task) {
  if (task.op != "conv2d")
    return Status::InvalidArgument("op '" + task.op + "' is not supported (only conv2d)");
  ConvProblem problem;
  for (const IntField& field : IntFields()) {
    auto value = GetInt(task.workload, field.key);
    if (!value.ok()) return value.status();
    if (*value < field.minimum || *value > kMaxWorkloadValue)
      return Status::InvalidArgument("workload " + std::string(field.key) + "=" + std::to_string(*value) +
                                     " must be in [" + std::to_string(field.minimum) + ", " +
                                     std::to_string(kMaxWorkloadValue) + "]");
    problem.*field.member = *value;
  }
  for (auto [key, member] : {std::pair{"in_type", &ConvProblem::in_type},
                             std::pair{"acc_type", &ConvProblem::acc_type},
                             std::pair{"out_type", &ConvProblem::out_type}}) {
    auto value = GetString(task.workload, key);
    if (!value.ok()) return value.status();
    if (TypeBits(*value) < 8)
      return Status::InvalidArgument("workload " + std::string(key) + " '" + *value +
                                     "' is not a type tensor cores take");
    problem.*member = *value;
  }
  UCMOH_RETURN_IF_ERROR(CheckOutputSize(problem));
  if (task.workload.count(kConvKindKey)) {
    auto name = GetString(task.workload, kConvKindKey);
    if (!name.ok()) return name.status();
    auto kind = ParseConvKind(*name);
    if (!kind.ok()) return kind.status().WithContext("workload " + std::string(kConvKindKey));
    problem.kind = *kind;
  }
  return problem;
}

std::string ShapeKey(const ConvProblem& p) {
  std::string key = "n" + std::to_string(p.n) + "_h" + std::to_string(p.h) + "_w" +
                    std::to_string(p.w) + "_c" + std::to_string(p.c) + "_k" + std::to_string(p.k) +
                    "_r" + std::to_string(p.r) + "_s" + std::to_string(p.s) + "_p" +
                    std::to_string(p.p) + "_q" + std::to_string(p.q) + "_" +
                    PairToken("pad", p.pad_h, p.pad_w) + "_" +
                    PairToken("str", p.stride_h, p.stride_w);
  if (p.dilation_h != 1 || p.dilation_w != 1)
    key += "_" + PairToken("dil", p.dilation_h, p.dilation_w);
  return key;
}

Task MakeConvTask(const std::string& suite, const ConvProblem& problem,
                  const TensorCoreIntrinsic& intrinsic) {
  // fprop keeps the key and workload it had before the other kinds existed.
  const bool fprop = problem.kind == ConvKind::kFprop;
  const std::string key_op = fprop ? "conv2d" : std::string("conv2d_") + ConvKindName(problem.kind);
  Task task;
  task.key = suite + "." + key_op + "." + ShapeKey(problem) + "." + intrinsic.short_name;
  task.op = "conv2d";
  for (const IntField& field : IntFields()) task.workload[field.key] = problem.*field.member;
  task.workload["in_type"] = problem.in_type;
  task.workload["acc_type"] = problem.acc_type;
  task.workload["out_type"] = problem.out_type;
  if (!fprop) task.workload[kConvKindKey] = std::string(ConvKindName(problem.kind));
  return task;
}

}  // namespace ucmoh::tensorcore
