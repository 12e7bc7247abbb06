// The networks CostModel trains, in LibTorch (internal to core). The UCMoH
// network is the list of layers in network_layers.h, run here op by op;
// attention is written out with plain tensor ops, not
// torch::nn::MultiheadAttention, as the TorchScript export writes it.
#pragma once

#include <torch/torch.h>

#include <vector>

#include "network_layers.h"
#include "ucmoh/cost_model.h"

namespace ucmoh {

// What CostModel trains: tokens in, one score per program out.
struct ScoringNetwork : torch::nn::Module {
  // x: [B, T, D] normalized tokens; valid: [B, T]. Returns [B] scores.
  virtual torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& valid) = 0;
};

// The network a config describes (config validated by the caller).
std::shared_ptr<ScoringNetwork> MakeScoringNetwork(const NetworkConfig& config);

// softmax(q k^T / sqrt(head_dim)) v per head over qkv = [q | k | v]
// ([B, T, 3H]); valid: [B, T] (1 = real token, 0 = padding). Returns [B, T, H].
torch::Tensor SelfAttention(const torch::Tensor& qkv, const torch::Tensor& valid, int heads);

// The 'ucmoh' architecture: a Linear per dense layer of UcmohLayers(config),
// registered under the layer's name, and a forward that runs the list.
struct UcmohNet : ScoringNetwork {
  explicit UcmohNet(const NetworkConfig& config);
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& valid) override;

  const std::vector<NetworkLayer>& layers() const { return layers_; }
  // The Linear of dense layer `index` of layers().
  const torch::nn::Linear& dense(size_t index) const { return dense_[index]; }

 private:
  int heads_;
  std::vector<NetworkLayer> layers_;
  std::vector<torch::nn::Linear> dense_;  // per layer; empty for layers without parameters
};

// The MLP baseline over flattened tokens: [B, max_tokens * D] -> MLP -> score.
struct FlatMlp : ScoringNetwork {
  explicit FlatMlp(const NetworkConfig& config);
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& valid) override;

  int max_tokens;
  torch::nn::Sequential layers{nullptr};
};

}  // namespace ucmoh
