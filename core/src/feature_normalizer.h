// Per-dimension standardization of token features (internal to core). Fitted
// once, on the data a model is first trained on, then frozen: later intrinsics
// must see the same input scale, or what the network learned would shift.
#pragma once

#include <torch/torch.h>

#include "ucmoh/program_set.h"

namespace ucmoh {

struct FeatureNormalizer {
  torch::Tensor mean;     // [D]
  torch::Tensor inv_std;  // [D]; dims with std < 1 are only centered (scale 1)

  bool fitted() const { return mean.defined(); }
  void Fit(const ProgramSet& set);
  // tokens: [B, T, D]; padding rows are re-zeroed by the valid mask.
  torch::Tensor Apply(const torch::Tensor& tokens, const torch::Tensor& valid) const;
};

}  // namespace ucmoh
