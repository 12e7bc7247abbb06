// The TorchScript artifact of a CostModel (`registry pull`'s model.pt), built
// in C++ with torch::jit::Module::define. The source is written from the
// network's one list of layers (network_layers.h), each kind of layer as
// ucmoh_network.cpp computes it, after feature_normalizer.cpp's normalization;
// tests/torchscript_export_test.cpp (C++) and tests/pulled_model_python_test.py
// (Python) check the two agree for every configuration the CLI trains and
// every intrinsic with data (docs/registry.md, last section).
#include "ucmoh/torchscript_export.h"

#include <fmt/format.h>
#include <torch/script.h>
#include <torch/torch.h>

#include <cmath>
#include <filesystem>

#include "cost_model_impl.h"
#include "network_layers.h"

namespace ucmoh {

namespace {

std::string Attr(const std::string& name) {
  std::string out = "p_";
  for (char c : name) out += (c == '.') ? '_' : c;
  return out;
}

std::string Linear(const std::string& x, const std::string& prefix) {
  return fmt::format("torch.matmul({}, self.{}.t()) + self.{}", x, Attr(prefix + ".weight"), Attr(prefix + ".bias"));
}

// The source's variable for each activation.
const char* Variable(Activation a) {
  switch (a) {
    case Activation::kTokens: return "x";
    case Activation::kHidden: return "h";
    case Activation::kInner: return "f";
    case Activation::kQkv: return "qkv";
    case Activation::kContext: return "context";
    case Activation::kPerToken: return "per_token";
  }
  return "";
}

std::string DenseSource(const NetworkLayer& layer) {
  std::string y = Linear(Variable(layer.src), layer.name);
  if (AppliesRelu(layer.epilogue)) y = "torch.relu(" + y + ")";
  const char* dst = Variable(layer.dst);
  return AddsInto(layer.epilogue) ? fmt::format("    {0} = {0} + ({1})\n", dst, y) : fmt::format("    {} = {}\n", dst, y);
}

std::string SelfAttentionSource(const NetworkLayer& layer, const NetworkConfig& c) {
  const int head_dim = c.hidden / c.heads;
  const char* qkv = Variable(layer.src);
  std::string s = fmt::format("    B = {0}.size(0)\n    T = {0}.size(1)\n    parts = {0}.chunk(3, -1)\n", qkv);
  const char* names[] = {"q", "k", "v"};
  for (int i = 0; i < 3; ++i)
    s += fmt::format("    {} = parts[{}].reshape([B, T, {}, {}]).transpose(1, 2)\n", names[i], i, c.heads, head_dim);
  s += fmt::format("    logits = torch.matmul(q, k.transpose(-2, -1)) / {:.17g}\n", std::sqrt(static_cast<double>(head_dim)));
  s += "    logits = logits + (valid.unsqueeze(1).unsqueeze(1) - 1.0) * 1e9\n";
  return s + fmt::format("    {} = torch.matmul(torch.softmax(logits, -1), v).transpose(1, 2).reshape([B, T, {}])\n",
                         Variable(layer.dst), c.hidden);
}

// The network's layers as TorchScript, after the feature normalizer
// (feature_normalizer.cpp) that the module holds as buffers.
std::string ForwardSource(const NetworkConfig& c) {
  std::string s = "def forward(self, tokens: Tensor, valid: Tensor) -> Tensor:\n";
  s += fmt::format("    {} = (tokens - self.norm_mean) * self.norm_inv_std * valid.unsqueeze(-1)\n",
                   Variable(Activation::kTokens));
  for (const NetworkLayer& layer : UcmohLayers(c)) {
    switch (layer.kind) {
      case NetworkLayer::Kind::kDense: s += DenseSource(layer); break;
      case NetworkLayer::Kind::kSelfAttention: s += SelfAttentionSource(layer, c); break;
      case NetworkLayer::Kind::kSumPerProgram:
        s += fmt::format("    return ({}.squeeze(-1) * valid).sum(1)\n", Variable(layer.src));
        break;
    }
  }
  return s;
}

}  // namespace

Status ExportTorchScript(const CostModel& model, const std::string& path) {
  const auto& impl = model.impl();
  if (impl.config.architecture != "ucmoh")
    return Status::Unsupported("pull exports only the 'ucmoh' architecture, not '" + impl.config.architecture + "'");
  if (!impl.normalizer.fitted()) return Status::InvalidArgument("model has not been trained: no feature normalizer");
  try {
    torch::jit::Module module("UcmohCostModel");
    for (const auto& p : impl.net->named_parameters())
      module.register_parameter(Attr(p.key()), p.value().detach().clone().contiguous(), /*is_buffer=*/false);
    module.register_buffer("norm_mean", impl.normalizer.mean.detach().clone().to(torch::kFloat));
    module.register_buffer("norm_inv_std", impl.normalizer.inv_std.detach().clone().to(torch::kFloat));
    module.define(ForwardSource(impl.config));
    module.eval();
    const std::string tmp = path + ".tmp";
    module.save(tmp);
    std::filesystem::rename(tmp, path);
  } catch (const std::exception& e) {
    std::string what = e.what();
    return Status::Internal("cannot export TorchScript: " + what.substr(0, what.find('\n')));
  }
  return Status::Ok();
}

}  // namespace ucmoh
