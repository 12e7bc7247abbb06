// The UCMoH network, defined once (internal to core): the layers in the order
// they run, each naming the activations it reads and writes. Three backends
// read this one list, none keeps its own copy of the network:
//   - the LibTorch module that trains (ucmoh_network.cpp) creates a Linear per
//     dense layer and runs the list;
//   - the oneDNN scoring plan (scoring_plan.cpp) compiles the list to matmuls
//     with fused epilogues and the packed attention kernel;
//   - the TorchScript export (torchscript_export.cpp) writes the list as source.
// A change to the network (another block, another residual) is a change to
// UcmohLayers() alone; a new kind of layer is one case in each backend, and
// tests/scoring_plan_test.cpp and tests/torchscript_export_test.cpp check the
// three agree. The 'mlp' baseline architecture is not described here: only
// the LibTorch backend runs it.
#pragma once

#include <string>
#include <vector>

#include "ucmoh/cost_model.h"

namespace ucmoh {

// The activations of one token that layers read and write ([tokens, width]).
enum class Activation { kTokens, kHidden, kInner, kQkv, kContext, kPerToken };
inline constexpr int kActivationCount = 6;

// What a dense layer does with y = W src + b: dst = y, dst = relu(y), or the
// residual forms dst += y, dst += relu(y).
enum class Epilogue { kNone, kRelu, kAddInto, kReluAddInto };

inline bool AppliesRelu(Epilogue e) { return e == Epilogue::kRelu || e == Epilogue::kReluAddInto; }
inline bool AddsInto(Epilogue e) { return e == Epilogue::kAddInto || e == Epilogue::kReluAddInto; }

struct NetworkLayer {
  enum class Kind {
    kDense,          // dst (=|+=) epilogue(W src + b)
    kSelfAttention,  // src = [q | k | v]; dst = softmax(q k^T / sqrt(head_dim)) v per head, within a program
    kSumPerProgram,  // a program's score: the sum of src (width 1) over its real tokens
  };
  Kind kind = Kind::kDense;
  // kDense: the prefix of its parameters as model files store them
  // (`encoder.0` holds encoder.0.weight and encoder.0.bias).
  std::string name;
  int in = 0, out = 0;  // kDense: widths
  Activation src = Activation::kTokens, dst = Activation::kHidden;
  Epilogue epilogue = Epilogue::kNone;
  bool feature_extractor = false;  // frozen by TransferMode::kExtract
  // kDense: when the module draws this layer's initial weights, relative to
  // the other dense layers (same seed, same weights as every stored model).
  int draw_order = 0;
};

// The 'ucmoh' architecture of `config` (validated by the caller).
std::vector<NetworkLayer> UcmohLayers(const NetworkConfig& config);

// An activation's width per token under `config`.
int ActivationWidth(Activation activation, const NetworkConfig& config);

// Whether TransferMode::kExtract freezes the parameter `name` (a layer with
// feature_extractor set owns it).
bool IsFeatureExtractorParameter(const NetworkConfig& config, const std::string& name);

}  // namespace ucmoh
