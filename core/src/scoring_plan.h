// The trained UCMoH network compiled for scoring on the CPU (internal to core).
// The layers are the network's one list (network_layers.h), run as UcmohNet
// runs them but computed differently: every program's
// tokens are packed one after another (no padding: padded tokens never change
// a real token's score), each dense layer is one oneDNN matmul over all of them
// with its bias, ReLU and residual add fused, the feature normalizer is folded
// into the layer that reads the tokens, and attention runs within each program
// (small_attention.h). tests/scoring_plan_test.cpp checks it against the
// LibTorch module; docs/journal/benchmarks-2026-11.md (issue 16) has what each step gained.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cost_model_impl.h"
#include "network_layers.h"

namespace ucmoh {

class ScoringPlan {
 public:
  // Only the "ucmoh" architecture; the caller checks Supports() first.
  static bool Supports(const CostModel::Impl& model);
  // bf16: the matmuls after the first take bfloat16 inputs and weights
  // (float32 bias, accumulation and outputs; attention and the residual
  // stream stay float32).
  explicit ScoringPlan(const CostModel::Impl& model, bool bf16 = false);

  // One score per program of `set`, in order. Throws dnnl::error if oneDNN
  // cannot run (the caller turns it into a Status).
  std::vector<float> Score(const ProgramSet& set) const;

  // The oneDNN implementation each matmul of the plan runs, in layer order,
  // for a chunk of `rows` tokens: "gemm:jit", "brg:avx512_core", ... A
  // "ref" one is oneDNN's reference loop, hundreds of times slower; the
  // plan avoids it where a plain matmul has a real kernel (tests check).
  std::vector<std::string> KernelImplementations(int64_t rows) const;

  // A Linear layer's weights, row-major [out, in], bias [out] and epilogue;
  // in a bf16 plan also the weights rounded to bfloat16 (the upper 16 bits).
  struct Dense {
    int in = 0, out = 0;
    Epilogue epilogue = Epilogue::kNone;
    std::vector<float> weight, bias;
    std::vector<uint16_t> weight_bf16;
  };

 private:
  void ScoreChunk(const ProgramSet& set, size_t first, size_t last, float* scores) const;

  NetworkConfig config_;
  std::vector<NetworkLayer> layers_;
  std::vector<Dense> dense_;  // per layer of layers_; used by the dense ones
};

// Scores `set` with the model's plan at `precision`. oneDNN failures come back
// as a Status: Unsupported for a bf16 plan the CPU cannot run.
Expected<std::vector<float>> ScoreWithPlan(const CostModel::Impl& model, const ProgramSet& set,
                                           ScoringPrecision precision);

}  // namespace ucmoh
