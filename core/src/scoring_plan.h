// The trained UCMoH network compiled for scoring on the CPU (internal to core).
// Same function as UcmohNet::forward, computed differently: every program's
// tokens are packed one after another (no padding: padded tokens never change
// a real token's score), each Linear is one oneDNN matmul over all of them
// with its bias, ReLU and residual add fused, the feature normalizer is folded
// into the first layer, and attention runs within each program
// (small_attention.h). tests/scoring_plan_test.cpp checks it against the
// LibTorch module; docs/benchmarks.md (issue 16) has what each step gained.
#pragma once

#include <cstdint>
#include <vector>

#include "cost_model_impl.h"

namespace ucmoh {

class ScoringPlan {
 public:
  // Only the "ucmoh" architecture; the caller checks Supports() first.
  static bool Supports(const CostModel::Impl& model);
  explicit ScoringPlan(const CostModel::Impl& model);

  // One score per program of `set`, in order. Throws dnnl::error if oneDNN
  // cannot run (the caller turns it into a Status).
  std::vector<float> Score(const ProgramSet& set) const;

  // A Linear layer's weights, row-major [out, in], and bias [out].
  struct Dense {
    int in = 0, out = 0;
    std::vector<float> weight, bias;
  };

 private:
  void ScoreChunk(const ProgramSet& set, size_t first, size_t last, int64_t tokens, float* scores) const;

  int hidden_ = 0, heads_ = 0;
  std::vector<Dense> encoder_;
  Dense in_proj_, out_proj_;
  std::vector<Dense> fc_;  // two per block: the inner and the outer Linear
  Dense decoder_;
};

}  // namespace ucmoh
