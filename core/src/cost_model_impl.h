// CostModel's state (internal to core; includes LibTorch).
#pragma once

#include <nlohmann/json_fwd.hpp>
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

// The network config a model file's metadata names (model_file.cpp; format 1
// stores the same JSON). Throws nlohmann::json::exception on a wrong type.
Expected<NetworkConfig> NetworkConfigFromModelMetadata(const nlohmann::json& meta);

// Format 1, a LibTorch archive (model_archive_v1.cpp): recognized by its zip
// magic, read only when the caller trusts the bytes.
bool IsModelArchiveV1(const std::string& bytes);
Expected<CostModel> LoadModelArchiveV1(const std::string& bytes);

}  // namespace ucmoh
