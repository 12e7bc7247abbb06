// The kernels tensorcore-measure compiles (measured_kernels.def), as the
// plugin's kernel configurations: what the plan validates and what each
// measured record's schedule says.
#pragma once

#include <string>
#include <vector>

#include "intrinsics.h"
#include "kernel_config.h"

namespace ucmoh::tensorcore::measure {

struct MeasuredKernel {
  std::string id;  // kernel_id.h
  const TensorCoreIntrinsic* intrinsic = nullptr;
  KernelConfig config;  // warps_k 1, split-K 1, 16-byte accesses, nhwc
};

// Both iterators of every line of measured_kernels.def, in file order (the
// order of CompiledKernels()).
const std::vector<MeasuredKernel>& MeasuredKernels();

}  // namespace ucmoh::tensorcore::measure
