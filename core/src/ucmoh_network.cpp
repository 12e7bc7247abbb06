#include "ucmoh_network.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "ucmoh/features.h"

namespace ucmoh {

torch::Tensor SelfAttention(const torch::Tensor& qkv_rows, const torch::Tensor& valid, int heads) {
  const int64_t batch = qkv_rows.size(0), tokens = qkv_rows.size(1), hidden = qkv_rows.size(2) / 3;
  const int64_t head_dim = hidden / heads;
  auto split_heads = [&](const torch::Tensor& t) {
    return t.reshape({batch, tokens, heads, head_dim}).transpose(1, 2);  // [B, heads, T, dh]
  };
  auto qkv = qkv_rows.chunk(3, /*dim=*/-1);
  auto q = split_heads(qkv[0]), k = split_heads(qkv[1]), v = split_heads(qkv[2]);
  auto logits = torch::matmul(q, k.transpose(-2, -1)) / std::sqrt(static_cast<double>(head_dim));
  // Padding tokens get a large negative logit: never attended to.
  logits = logits + (valid.unsqueeze(1).unsqueeze(1) - 1.0) * 1e9;
  auto context = torch::matmul(torch::softmax(logits, -1), v);  // [B, heads, T, dh]
  return context.transpose(1, 2).reshape({batch, tokens, hidden});
}

namespace {

// Registers `linear` under a dotted name ("fc_blocks.0.2"), creating the plain
// modules on the way, so its parameters are named `name`.weight / .bias.
void RegisterNested(torch::nn::Module& root, const std::string& name, const torch::nn::Linear& linear) {
  torch::nn::Module* parent = &root;
  size_t begin = 0;
  for (size_t dot = name.find('.'); dot != std::string::npos; begin = dot + 1, dot = name.find('.', begin)) {
    const std::string part = name.substr(begin, dot - begin);
    auto children = parent->named_children();
    if (const auto* child = children.find(part)) {
      parent = child->get();
    } else {
      parent = parent->register_module(part, std::make_shared<torch::nn::Module>()).get();
    }
  }
  parent->register_module(name.substr(begin), linear);
}

}  // namespace

// The Linears are created in the layers' draw_order (their initial weights,
// seed for seed, those of every stored model) and registered in run order
// (the parameter order of model files).
UcmohNet::UcmohNet(const NetworkConfig& config) : heads_(config.heads), layers_(UcmohLayers(config)) {
  dense_.resize(layers_.size(), torch::nn::Linear(nullptr));
  std::vector<size_t> by_draw;
  for (size_t i = 0; i < layers_.size(); ++i)
    if (layers_[i].kind == NetworkLayer::Kind::kDense) by_draw.push_back(i);
  std::sort(by_draw.begin(), by_draw.end(),
            [&](size_t a, size_t b) { return layers_[a].draw_order < layers_[b].draw_order; });
  for (size_t i : by_draw) dense_[i] = torch::nn::Linear(layers_[i].in, layers_[i].out);
  for (size_t i = 0; i < layers_.size(); ++i)
    if (layers_[i].kind == NetworkLayer::Kind::kDense) RegisterNested(*this, layers_[i].name, dense_[i]);
}

torch::Tensor UcmohNet::forward(const torch::Tensor& x, const torch::Tensor& valid) {
  std::array<torch::Tensor, kActivationCount> a;
  auto at = [&](Activation which) -> torch::Tensor& { return a[static_cast<size_t>(which)]; };
  at(Activation::kTokens) = x;
  for (size_t i = 0; i < layers_.size(); ++i) {
    const NetworkLayer& layer = layers_[i];
    switch (layer.kind) {
      case NetworkLayer::Kind::kDense: {
        auto y = dense_[i]->forward(at(layer.src));
        if (AppliesRelu(layer.epilogue)) y = torch::relu(y);
        at(layer.dst) = AddsInto(layer.epilogue) ? at(layer.dst) + y : y;
        break;
      }
      case NetworkLayer::Kind::kSelfAttention: at(layer.dst) = SelfAttention(at(layer.src), valid, heads_); break;
      case NetworkLayer::Kind::kSumPerProgram: at(layer.dst) = (at(layer.src).squeeze(-1) * valid).sum(1); break;
    }
  }
  return at(layers_.back().dst);
}

FlatMlp::FlatMlp(const NetworkConfig& config) : max_tokens(config.max_tokens) {
  torch::nn::Sequential seq;
  int in = max_tokens * kFeatureDim;
  for (int i = 0; i < config.encoder_layers + config.fc_blocks; ++i) {
    seq->push_back(torch::nn::Linear(in, config.hidden));
    seq->push_back(torch::nn::ReLU());
    in = config.hidden;
  }
  seq->push_back(torch::nn::Linear(in, 1));
  layers = register_module("layers", seq);
}

torch::Tensor FlatMlp::forward(const torch::Tensor& x, const torch::Tensor& valid) {
  auto padded = x;
  if (x.size(1) > max_tokens) padded = x.narrow(1, 0, max_tokens);
  if (x.size(1) < max_tokens)
    padded = torch::constant_pad_nd(x, {0, 0, 0, max_tokens - x.size(1)});
  return layers->forward(padded.reshape({x.size(0), -1})).squeeze(-1);
}

std::shared_ptr<ScoringNetwork> MakeScoringNetwork(const NetworkConfig& config) {
  if (config.architecture == "mlp") return std::make_shared<FlatMlp>(config);
  return std::make_shared<UcmohNet>(config);
}

}  // namespace ucmoh
