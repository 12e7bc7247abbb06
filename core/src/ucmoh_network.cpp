#include "ucmoh_network.h"

#include <cmath>

#include "ucmoh/features.h"

namespace ucmoh {

SelfAttentionImpl::SelfAttentionImpl(int hidden, int heads_) : heads(heads_) {
  in_proj = register_module("in_proj", torch::nn::Linear(hidden, 3 * hidden));
  out_proj = register_module("out_proj", torch::nn::Linear(hidden, hidden));
}

torch::Tensor SelfAttentionImpl::forward(const torch::Tensor& h, const torch::Tensor& valid) {
  const int64_t batch = h.size(0), tokens = h.size(1), hidden = h.size(2);
  const int64_t head_dim = hidden / heads;
  auto split_heads = [&](const torch::Tensor& t) {
    return t.reshape({batch, tokens, heads, head_dim}).transpose(1, 2);  // [B, heads, T, dh]
  };
  auto qkv = in_proj->forward(h).chunk(3, /*dim=*/-1);
  auto q = split_heads(qkv[0]), k = split_heads(qkv[1]), v = split_heads(qkv[2]);
  auto logits = torch::matmul(q, k.transpose(-2, -1)) / std::sqrt(static_cast<double>(head_dim));
  // Padding tokens get a large negative logit: never attended to.
  logits = logits + (valid.unsqueeze(1).unsqueeze(1) - 1.0) * 1e9;
  auto context = torch::matmul(torch::softmax(logits, -1), v);  // [B, heads, T, dh]
  return out_proj->forward(context.transpose(1, 2).reshape({batch, tokens, hidden}));
}

UcmohNet::UcmohNet(const NetworkConfig& config) {
  torch::nn::Sequential enc;
  int in = kFeatureDim;
  for (int i = 0; i < config.encoder_layers; ++i) {
    enc->push_back(torch::nn::Linear(in, config.hidden));
    enc->push_back(torch::nn::ReLU());
    in = config.hidden;
  }
  encoder = register_module("encoder", enc);
  attention = register_module("attention", SelfAttention(config.hidden, config.heads));
  torch::nn::ModuleList blocks;
  for (int i = 0; i < config.fc_blocks; ++i) {
    blocks->push_back(torch::nn::Sequential(torch::nn::Linear(config.hidden, config.hidden),
                                            torch::nn::ReLU(),
                                            torch::nn::Linear(config.hidden, config.hidden)));
  }
  fc_blocks = register_module("fc_blocks", blocks);
  decoder = register_module("decoder", torch::nn::Linear(config.hidden, 1));
}

torch::Tensor UcmohNet::forward(const torch::Tensor& x, const torch::Tensor& valid) {
  auto h = encoder->forward(x);
  h = h + attention->forward(h, valid);
  for (const auto& block : *fc_blocks) h = h + torch::relu(block->as<torch::nn::Sequential>()->forward(h));
  auto per_token = decoder->forward(h).squeeze(-1);  // [B, T]
  return (per_token * valid).sum(1);
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

bool IsFeatureExtractorParameter(const std::string& name) {
  return name.rfind("encoder.", 0) == 0 || name.rfind("attention.", 0) == 0;
}

}  // namespace ucmoh
