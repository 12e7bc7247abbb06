// A conv2d forward problem (NHWC activations, KRSC filters, NPQK output) and
// the implicit GEMM CUTLASS maps it to: M = n*p*q, N = k, K = c*r*s.
#pragma once

#include <cstdint>
#include <string>

#include "intrinsics.h"
#include "ucmoh/record.h"
#include "ucmoh/status.h"

namespace ucmoh::tensorcore {

struct ConvProblem {
  int64_t n = 1, h = 1, w = 1, c = 1, k = 1, r = 1, s = 1, p = 1, q = 1;
  int64_t pad_h = 0, pad_w = 0, stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1;
  std::string in_type;   // activations and filters
  std::string acc_type;  // accumulators
  std::string out_type;  // output tensor (the epilogue converts to it)

  int64_t GemmM() const { return n * p * q; }
  int64_t GemmN() const { return k; }
  int64_t GemmK() const { return c * r * s; }
};

// Reads and checks a task's workload (op "conv2d"; p and q must follow from
// h, w, r, s, padding, stride and dilation).
Expected<ConvProblem> ConvProblemFromTask(const Task& task);

// Fills in p and q from the other sizes (for suites written by hand).
void ComputeOutputSize(ConvProblem& problem);

Status CheckOutputSize(const ConvProblem& problem);

// "n256_h56_w56_c64_k256_r1_s1_p56_q56_pad0_str1" (+ "_dil2" when dilated).
std::string ShapeKey(const ConvProblem& problem);

// The task of one (layer, intrinsic): key "<suite>.conv2d.<shape>.<short name>".
Task MakeConvTask(const std::string& suite, const ConvProblem& problem,
                  const TensorCoreIntrinsic& intrinsic);

}  // namespace ucmoh::tensorcore
