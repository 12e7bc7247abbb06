// The workload of a CPU GEMM task: `batch` independent products
// C[M x N] += A[M x K] * B[K x N], read from a Task's workload parameters.
//
// Layouts the kernels assume (docs/cpu-gemm.md): A row-major with its rows
// zero-padded to a whole number of k-groups; B in the k-group-interleaved
// layout [ceil(K/kg)][N][kg] (plain row-major when kg = 1), i.e. weights
// prepacked once ahead of time, as oneDNN and XNNPACK store them; C row-major.
#pragma once

#include <cstdint>
#include <string>

#include "ucmoh/record.h"
#include "ucmoh/status.h"
#include "ucmoh/target.h"

namespace ucmoh::cpu_gemm {

struct GemmProblem {
  int64_t m = 1, n = 1, k = 1;
  int64_t batch = 1;  // independent GEMMs of this shape, run one after another

  double flops() const { return 2.0 * static_cast<double>(batch * m) * n * k; }
};

// Reads m, n, k (and batch, default 1) from the workload. When the workload
// names in_type / acc_type they must be the intrinsic's, so a task made for
// one intrinsic is not silently lowered onto another.
Expected<GemmProblem> ProblemFromTask(const Task& task, const IntrinsicInfo& intrinsic);

}  // namespace ucmoh::cpu_gemm
