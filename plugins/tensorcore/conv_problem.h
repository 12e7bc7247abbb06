// A conv2d problem (NHWC activations x, KRSC filters w, NPQK output y) and
// the pass a kernel computes on it: y from x and w (fprop), dx from dy and w
// (dgrad) or dw from dy and x (wgrad). The sizes are the forward layer's in
// every kind, as CUTLASS's Conv2dProblemSize; implicit_gemm.h maps each kind
// to its GEMM.
#pragma once

#include <cstdint>
#include <string>

#include "conv_kind.h"
#include "intrinsics.h"
#include "ucmoh/record.h"
#include "ucmoh/status.h"

namespace ucmoh::tensorcore {

struct ConvProblem {
  int64_t n = 1, h = 1, w = 1, c = 1, k = 1, r = 1, s = 1, p = 1, q = 1;
  int64_t pad_h = 0, pad_w = 0, stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1;
  std::string in_type;   // both GEMM operands (x and w, dy and w, or dy and x)
  std::string acc_type;  // accumulators
  std::string out_type;  // output tensor (the epilogue converts to it)
  ConvKind kind = ConvKind::kFprop;
};

// Reads and checks a task's workload (op "conv2d"; p and q must follow from
// h, w, r, s, padding, stride and dilation). The string "conv_kind" is
// optional: absent means fprop, as in every record written before dgrad and
// wgrad were imported.
Expected<ConvProblem> ConvProblemFromTask(const Task& task);

// Fills in p and q from the other sizes (for suites written by hand).
void ComputeOutputSize(ConvProblem& problem);

Status CheckOutputSize(const ConvProblem& problem);

// "n256_h56_w56_c64_k256_r1_s1_p56_q56_pad0_str1" (+ "_dil2" when dilated).
std::string ShapeKey(const ConvProblem& problem);

// The task of one (layer, kind, intrinsic): key "<suite>.conv2d.<shape>.<short
// name>" for fprop, "<suite>.conv2d_dgrad...." / "<suite>.conv2d_wgrad...."
// otherwise. Only dgrad and wgrad workloads carry "conv_kind", so fprop tasks
// keep the keys and workloads (and program keys) they had before.
Task MakeConvTask(const std::string& suite, const ConvProblem& problem,
                  const TensorCoreIntrinsic& intrinsic);

}  // namespace ucmoh::tensorcore
