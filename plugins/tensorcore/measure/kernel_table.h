// The kernels compiled into tensorcore-measure, by id (kernel_id.h): how to
// launch each on a problem. Plain C++ (no CUDA types), so host code built by
// the C++ compiler calls it.
#pragma once

#include <string>
#include <vector>

#include "conv_shape.h"

namespace ucmoh::tensorcore::measure {

struct KernelLauncher {
  std::string id;
  int threads = 0;
  int shared_bytes = 0;
  // Sets the kernel's shared-memory limit; a cudaError_t (0 = success).
  int (*prepare)() = nullptr;
  // One launch on the default stream; a cudaError_t (0 = success). x, w and
  // y are device pointers of the kernel's element and output types.
  int (*launch)(const ConvShape& shape, const void* x, const void* w, void* y) = nullptr;
};

// Every compiled kernel (measured_kernels.def, both iterators), in file order.
const std::vector<KernelLauncher>& CompiledKernels();

// nullptr when no kernel has the id.
const KernelLauncher* FindCompiledKernel(const std::string& id);

// One per instruction, each in its own translation unit (they compile in parallel).
void AddKernels_h1688(std::vector<KernelLauncher>& table);
void AddKernels_s1688(std::vector<KernelLauncher>& table);
void AddKernels_i8816(std::vector<KernelLauncher>& table);
void AddKernels_h16816(std::vector<KernelLauncher>& table);
void AddKernels_s16816(std::vector<KernelLauncher>& table);
void AddKernels_i16832(std::vector<KernelLauncher>& table);

}  // namespace ucmoh::tensorcore::measure
