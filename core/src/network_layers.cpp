#include "network_layers.h"

#include <fmt/format.h>

#include <utility>

#include "ucmoh/features.h"

namespace ucmoh {

namespace {

using Kind = NetworkLayer::Kind;

NetworkLayer Dense(std::string name, int in, int out, Activation src, Activation dst, Epilogue epilogue) {
  NetworkLayer layer;
  layer.kind = Kind::kDense;
  layer.name = std::move(name);
  layer.in = in;
  layer.out = out;
  layer.src = src;
  layer.dst = dst;
  layer.epilogue = epilogue;
  return layer;
}

NetworkLayer Pass(Kind kind, std::string name, Activation src, Activation dst) {
  NetworkLayer layer;
  layer.kind = kind;
  layer.name = std::move(name);
  layer.src = src;
  layer.dst = dst;
  return layer;
}

}  // namespace

// Token features -> encoder (Linear + ReLU, encoder_layers times) -> one
// residual self-attention -> fc_blocks residual blocks h += relu(W2 relu(W1 h))
// -> a score per token -> the program's score, their sum. The parameter names
// are those of the first LibTorch module (a Sequential with the ReLUs at odd
// indices: encoder.0, encoder.2, ...), so every stored model keeps loading.
std::vector<NetworkLayer> UcmohLayers(const NetworkConfig& c) {
  using A = Activation;
  std::vector<NetworkLayer> layers;
  int in = kFeatureDim;
  for (int i = 0; i < c.encoder_layers; ++i) {
    layers.push_back(Dense(fmt::format("encoder.{}", 2 * i), in, c.hidden, i == 0 ? A::kTokens : A::kHidden,
                           A::kHidden, Epilogue::kRelu));
    in = c.hidden;
  }
  layers.push_back(Dense("attention.in_proj", c.hidden, 3 * c.hidden, A::kHidden, A::kQkv, Epilogue::kNone));
  layers.push_back(Pass(Kind::kSelfAttention, "attention", A::kQkv, A::kContext));
  layers.push_back(Dense("attention.out_proj", c.hidden, c.hidden, A::kContext, A::kHidden, Epilogue::kAddInto));
  for (auto& layer : layers) layer.feature_extractor = true;  // everything up to here
  std::vector<size_t> fc_inner;  // where each block's inner Linear is
  for (int b = 0; b < c.fc_blocks; ++b) {
    fc_inner.push_back(layers.size());
    layers.push_back(Dense(fmt::format("fc_blocks.{}.0", b), c.hidden, c.hidden, A::kHidden, A::kInner, Epilogue::kRelu));
    layers.push_back(
        Dense(fmt::format("fc_blocks.{}.2", b), c.hidden, c.hidden, A::kInner, A::kHidden, Epilogue::kReluAddInto));
  }
  layers.push_back(Dense("decoder", c.hidden, 1, A::kHidden, A::kPerToken, Epilogue::kNone));
  layers.push_back(Pass(Kind::kSumPerProgram, "score", A::kPerToken, A::kPerToken));
  // Initial weights are drawn in run order, except that an FC block's outer
  // Linear draws before its inner one: the first module built a block as
  // Sequential(Linear, ReLU, Linear) and GCC evaluates constructor arguments
  // right to left. Every figure in the docs and every seeded test was trained
  // so; Clang builds drew the other way until the order was made explicit here.
  for (size_t i = 0; i < layers.size(); ++i) layers[i].draw_order = static_cast<int>(i);
  for (size_t inner : fc_inner) std::swap(layers[inner].draw_order, layers[inner + 1].draw_order);
  return layers;
}

int ActivationWidth(Activation activation, const NetworkConfig& c) {
  switch (activation) {
    case Activation::kTokens: return kFeatureDim;
    case Activation::kQkv: return 3 * c.hidden;
    case Activation::kPerToken: return 1;
    case Activation::kHidden:
    case Activation::kInner:
    case Activation::kContext: return c.hidden;
  }
  return 0;
}

bool IsFeatureExtractorParameter(const NetworkConfig& config, const std::string& name) {
  if (config.architecture == "mlp") return false;
  for (const auto& layer : UcmohLayers(config))
    if (layer.feature_extractor && layer.kind == Kind::kDense && name.rfind(layer.name + ".", 0) == 0) return true;
  return false;
}

}  // namespace ucmoh
