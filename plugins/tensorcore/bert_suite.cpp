#include "bert_suite.h"

namespace ucmoh::tensorcore {

namespace {

constexpr int64_t kSequence = 128;
struct Gemm {
  int64_t in, out;
};
constexpr Gemm kGemms[] = {{768, 2304}, {768, 768}, {768, 3072}, {3072, 768}};

}  // namespace

std::vector<ConvProblem> BertGemms(const std::string& in_type, const std::string& acc_type,
                                   const std::string& out_type, const std::vector<int64_t>& batches) {
  std::vector<ConvProblem> problems;
  for (int64_t batch : batches)
    for (const Gemm& gemm : kGemms) {
      ConvProblem p;
      p.n = batch * kSequence;
      p.c = gemm.in;
      p.k = gemm.out;
      p.in_type = in_type;
      p.acc_type = acc_type;
      p.out_type = out_type;
      ComputeOutputSize(p);
      problems.push_back(p);
    }
  return problems;
}

bool IsBertGemm(const ConvProblem& problem) {
  for (const ConvProblem& gemm : BertGemms("", "", ""))
    if (gemm.n == problem.n && gemm.c == problem.c && gemm.k == problem.k && problem.h == 1 && problem.w == 1 &&
        problem.r == 1 && problem.s == 1 && problem.kind == ConvKind::kFprop)
      return true;
  return false;
}

}  // namespace ucmoh::tensorcore
