// The UCMoH network in LibTorch (internal to core). Attention is written out
// with plain tensor ops, not torch::nn::MultiheadAttention, so that the same
// math can be emitted as TorchScript source for `pull` and checked equal.
#pragma once

#include <torch/torch.h>

#include "ucmoh/cost_model.h"

namespace ucmoh {

struct SelfAttentionImpl : torch::nn::Module {
  SelfAttentionImpl(int hidden, int heads);
  // h: [B, T, H]; valid: [B, T] (1 = real token, 0 = padding).
  torch::Tensor forward(const torch::Tensor& h, const torch::Tensor& valid);

  int heads;
  torch::nn::Linear in_proj{nullptr}, out_proj{nullptr};
};
TORCH_MODULE(SelfAttention);

struct UcmohNetImpl : torch::nn::Module {
  explicit UcmohNetImpl(const NetworkConfig& config);
  // x: [B, T, D] normalized tokens; valid: [B, T]. Returns [B] scores.
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& valid);

  torch::nn::Sequential encoder{nullptr};
  SelfAttention attention{nullptr};
  torch::nn::ModuleList fc_blocks{nullptr};  // each a Sequential(Linear, ReLU, Linear), used residually
  torch::nn::Linear decoder{nullptr};
};
TORCH_MODULE(UcmohNet);

// Names of the parameter groups the feature-extractor mode freezes.
bool IsFeatureExtractorParameter(const std::string& name);

}  // namespace ucmoh
