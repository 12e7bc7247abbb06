// CostModel's state (internal to core; includes LibTorch).
#pragma once

#include <string>
#include <vector>

#include "feature_normalizer.h"
#include "token_batch.h"
#include "ucmoh/cost_model.h"
#include "ucmoh_network.h"

namespace ucmoh {

struct CostModel::Impl {
  NetworkConfig config;
  std::shared_ptr<ScoringNetwork> net;
  FeatureNormalizer normalizer;
  std::vector<std::string> learned_intrinsics;

  // Scores of a batch; gradients flow when the caller has them enabled.
  torch::Tensor Forward(const TokenBatch& batch) {
    return net->forward(normalizer.Apply(batch.tokens, batch.valid), batch.valid);
  }
};

}  // namespace ucmoh
