// The "bert" task suite: the four GEMMs of a BERT-base encoder layer
// (hidden 768, 12 heads, FFN 3072; QKV projection fused to 2304 outputs) at
// sequence length 128 and batch 8 and 32, each as the 1x1 conv2d it is in
// NHWC: n = tokens, h = w = 1, c = input features, k = output features, so
// the implicit GEMM is the GEMM (M = tokens, N = out, reduction = in).
#pragma once

#include <string>
#include <vector>

#include "conv_problem.h"

namespace ucmoh::tensorcore {

constexpr const char* kBertSuite = "bert";

// At sequence 128 and each of `batches` (default 8 and 32).
std::vector<ConvProblem> BertGemms(const std::string& in_type, const std::string& acc_type,
                                   const std::string& out_type, const std::vector<int64_t>& batches = {8, 32});

// Whether a problem is one of those GEMMs at the default batches (types aside).
bool IsBertGemm(const ConvProblem& problem);

}  // namespace ucmoh::tensorcore
