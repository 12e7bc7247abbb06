// The UCMoH network in LibTorch (internal to core). Attention is written out
// with plain tensor ops, not torch::nn::MultiheadAttention, so that the same
// math can be emitted as TorchScript source for `pull` and checked equal.
#pragma once

#include <torch/torch.h>

#include "ucmoh/cost_model.h"

namespace ucmoh {

// What CostModel trains: tokens in, one score per program out.
struct ScoringNetwork : torch::nn::Module {
  // x: [B, T, D] normalized tokens; valid: [B, T]. Returns [B] scores.
  virtual torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& valid) = 0;
};

// The network a config describes (config validated by the caller).
std::shared_ptr<ScoringNetwork> MakeScoringNetwork(const NetworkConfig& config);

struct SelfAttentionImpl : torch::nn::Module {
  SelfAttentionImpl(int hidden, int heads);
  // h: [B, T, H]; valid: [B, T] (1 = real token, 0 = padding).
  torch::Tensor forward(const torch::Tensor& h, const torch::Tensor& valid);

  int heads;
  torch::nn::Linear in_proj{nullptr}, out_proj{nullptr};
};
TORCH_MODULE(SelfAttention);

struct UcmohNet : ScoringNetwork {
  explicit UcmohNet(const NetworkConfig& config);
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& valid) override;

  torch::nn::Sequential encoder{nullptr};
  SelfAttention attention{nullptr};
  torch::nn::ModuleList fc_blocks{nullptr};  // each a Sequential(Linear, ReLU, Linear), used residually
  torch::nn::Linear decoder{nullptr};
};

// The MLP baseline over flattened tokens: [B, max_tokens * D] -> MLP -> score.
struct FlatMlp : ScoringNetwork {
  explicit FlatMlp(const NetworkConfig& config);
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& valid) override;

  int max_tokens;
  torch::nn::Sequential layers{nullptr};
};

// Names of the parameter groups the feature-extractor mode freezes.
bool IsFeatureExtractorParameter(const std::string& name);

}  // namespace ucmoh
