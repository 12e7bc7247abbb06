// The six tensor-core mma instructions, named as CUTLASS names its kernels
// (h = f16 accumulate, s = f32 accumulate, i = integer; then the m n k shape).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ucmoh/target.h"

namespace ucmoh::tensorcore {

struct TensorCoreIntrinsic {
  IntrinsicInfo info;      // info.name = "tensorcore.<short_name>"
  std::string short_name;  // "h16816": the token in CUTLASS operation names
  // 75: CUTLASS instantiates it in its Turing (sm_75) kernels, which pipeline
  // through registers with 2 stages; 80: in its Ampere multistage kernels,
  // which copy global -> shared with cp.async (4, 8 or 16 bytes per access).
  int min_compute_capability = 80;

  int64_t InputBytes() const { return TypeBits(info.input_type) / 8; }
  int64_t AccumBytes() const { return TypeBits(info.accum_type) / 8; }
  bool UsesCpAsync() const { return min_compute_capability >= 80; }
};

const std::vector<TensorCoreIntrinsic>& AllIntrinsics();

// By full name ("tensorcore.h16816"); nullptr when unknown.
const TensorCoreIntrinsic* FindIntrinsic(const std::string& name);

// By instruction shape and types, as a CUTLASS profiler row describes it.
const TensorCoreIntrinsic* FindIntrinsicByShape(int64_t m, int64_t n, int64_t k,
                                                const std::string& input_type,
                                                const std::string& accum_type);

// "tensorcore.h1688, tensorcore.h16816, ..." for error messages.
std::string IntrinsicNameList();

}  // namespace ucmoh::tensorcore
