// GEMM-shaped layers of real networks, as task suites: "resnet50" (convs as
// implicit GEMM), "bert" (BERT-base dense layers and attention batch-matmuls),
// "mobilenetv2" (pointwise 1x1 convs) and "all" (their union).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ucmoh/record.h"
#include "ucmoh/status.h"
#include "ucmoh/target.h"

namespace ucmoh::cpu_gemm {

// One layer as a GEMM: `batch` independent C[m x n] += A[m x k] * B[k x n].
struct GemmWorkload {
  std::string network;    // "resnet50"
  std::string layer;      // "conv2_x.3x3"
  std::string source_op;  // "conv2d", "dense", "batch_matmul"
  int64_t m = 0, n = 0, k = 0;
  int64_t batch = 1;

  double flops() const { return 2.0 * static_cast<double>(batch * m) * n * k; }
};

// A run should take about 0.2-50 ms at 50-100 GFLOP/s in fp32: suites keep the
// workloads whose flops fall in [kMinSuiteFlops, kMaxSuiteFlops].
constexpr double kMinSuiteFlops = 1e7;
constexpr double kMaxSuiteFlops = 5e9;

std::vector<std::string> GemmSuiteNames();

// The suite's workloads, distinct by (network, m, n, k, batch), in a fixed order.
Expected<std::vector<GemmWorkload>> SuiteWorkloads(const std::string& suite);

// The suite's tasks for one intrinsic: op "gemm", workload ints m, n, k, batch
// and strings network, layer, source_op, in_type, acc_type; keys
// "<network>.<layer>.m<M>_n<N>_k<K>[_b<batch>].<intrinsic without target>".
Expected<std::vector<Task>> SuiteTasks(const std::string& suite, const IntrinsicInfo& intrinsic);

}  // namespace ucmoh::cpu_gemm
