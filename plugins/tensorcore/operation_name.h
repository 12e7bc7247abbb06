// CUTLASS conv2d kernel names, as its library generator spells them
// (tools/library/scripts/conv2d_operation.py, configuration_name):
//
//   cutlass_[sm80_]tensorop_[<element C>_]<instruction><kind>_<iterator>[_<element A>]
//     _<cta_m>x<cta_n>_<cta_k>x<stages>_<layout>[_unity_stride]_align<N>
//   cutlass_[sm80_]tensorop_[<element C>_]<instruction>gemm[_<element A>]
//     _<cta_m>x<cta_n>_<cta_k>x<stages>_<A and B layouts>_align<N>      (gemm_operation.py)
//
// e.g. cutlass_tensorop_s16816dgrad_optimized_f16_128x128_32x3_nhwc_unity_stride_align8.
// <instruction> is the accumulator letter and the mma shape ("h16816"); the
// element of C is spelled only where both C and A differ from the
// accumulator, the element of A wherever it differs; "unity_stride" marks a
// dgrad kernel that runs stride-1 problems only; <N> is A's alignment in
// elements. The profiler prints this name in its Operation column. Forks of
// CUTLASS append their own tokens after the alignment: kept apart (suffix).
#pragma once

#include <cstdint>
#include <string>

#include "conv_kind.h"
#include "intrinsics.h"
#include "kernel_config.h"
#include "ucmoh/status.h"

namespace ucmoh::tensorcore {

struct OperationName {
  std::string instruction;  // "h16816" (compared with TensorCoreIntrinsic::short_name)
  std::string kind;         // "fprop", "dgrad", "wgrad", CUTLASS's "deconv", or "gemm"
  std::string iterator;     // "analytic", "optimized", "fixed_channels", "few_channels"
  std::string element_a;    // empty where A's element is the accumulator's
  std::string element_c;    // empty where the name does not spell it
  int64_t cta_m = 0, cta_n = 0, cta_k = 0, stages = 0;
  std::string layout;       // "nhwc"; a GEMM's A and B: "tn" (A row-major, B column-major), "nt", ...
  bool unity_stride = false;
  int64_t alignment = 0;
  std::string suffix;       // what a fork appends after _align<N>, e.g. "myfork_v2"
};

// Fails with "operation 'NAME' is not a CUTLASS conv2d tensor-op kernel name
// (<what is wrong>)".
Expected<OperationName> ParseOperationName(const std::string& name);

// The name CUTLASS gives the kernel of a configuration, e.g.
// "cutlass_tensorop_s16816fprop_optimized_f16_128x128_32x3_nhwc_align8" (C in
// the accumulator type, as the plugin's own tasks write it).
std::string FormatOperationName(const KernelConfig& config, const TensorCoreIntrinsic& intrinsic,
                                ConvKind kind);

}  // namespace ucmoh::tensorcore
