// The implicit GEMM CUTLASS runs for a conv2d problem of each kind, and how a
// kernel configuration tiles it (CUTLASS's implicit_gemm_problem_size and
// implicit_gemm_k_iterations, conv/conv2d_problem_size.h):
//
//   kind   A (M x K)        B (K x N)       C (M x N)     M        N        K
//   fprop  x   NHWC         w  KRSC         y  NPQK       n*p*q    k        c*r*s
//   dgrad  dy  NPQK         w  KRSC         dx NHWC       n*h*w    c        k*r*s
//   wgrad  dy  NPQK         x  NHWC         dw KRSC       k        c*r*s    n*p*q
//
// fprop and dgrad walk the reduction one filter tap at a time (r*s taps of c,
// resp. k, channels); wgrad's reduction over n*p*q has no taps. Split-K slices
// divide each tap's channels.
#pragma once

#include <cstdint>
#include <vector>

#include "conv_problem.h"
#include "kernel_config.h"

namespace ucmoh::tensorcore {

struct ImplicitGemm {
  int64_t m = 1, n = 1, k = 1;
  int64_t filter_taps = 1;        // r*s (fprop, dgrad), 1 (wgrad)
  int64_t reduction_per_tap = 1;  // c (fprop), k (dgrad), n*p*q (wgrad): what split-K divides
  const char* reduction_name = "";  // "the channels c", ... for messages
};

ImplicitGemm MapToImplicitGemm(const ConvProblem& problem);

// Blocks that run the same main loop. Every kind has one group, except dgrad
// with stride > 1: CUTLASS's strided dgrad launches stride_h*stride_w filter
// phases of blocks, and a phase walks only the filter taps congruent to it
// (num_gemm_k_filter_positions), so phases with different tap counts have
// different k loops; a phase with no tap only runs the epilogue.
struct BlockGroup {
  int64_t blocks = 1;   // thread blocks of the group (all of its M and N tiles)
  int64_t k_tiles = 0;  // iterations of the pipelined main loop; 0 = epilogue only
};

// Grid and k-loop sizes, shared by the lowering and the tests.
struct GemmTiling {
  int64_t tiles_m = 1, tiles_n = 1;   // output tiles along M and N (all phases)
  int64_t channels_per_slice = 1;     // ceil(reduction_per_tap / split_k_slices)
  int64_t k_tiles_per_filter_tap = 1; // ceil(channels_per_slice / cta_k)
  int64_t k_tiles = 1;                // filter_taps * k_tiles_per_filter_tap (a group with every tap)
  std::vector<BlockGroup> groups;
  // Flops the mma instructions execute, padding included.
  double PaddedFlops(const KernelConfig& c) const;
};

GemmTiling ComputeTiling(const ConvProblem& problem, const KernelConfig& config);

// Whether CUTLASS runs the problem with its strided-dgrad kernel decomposition.
bool IsStridedDgrad(const ConvProblem& problem);

}  // namespace ucmoh::tensorcore
