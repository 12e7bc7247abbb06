// The TorchScript artifact of a CostModel (`registry pull`'s model.pt), built
// in C++ with torch::jit::Module::define. The TorchScript source mirrors
// ucmoh_network.cpp and feature_normalizer.cpp op for op, beside them in core;
// tests/torchscript_export_test.cpp (C++) and tests/pulled_model_python_test.py
// (Python) check the two agree for every configuration the CLI trains and
// every intrinsic with data (docs/registry.md, last section).
#include "ucmoh/torchscript_export.h"

#include <fmt/format.h>
#include <torch/script.h>
#include <torch/torch.h>

#include <cmath>
#include <filesystem>
#include <sstream>

#include "cost_model_impl.h"

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

std::string ForwardSource(const NetworkConfig& c) {
  std::ostringstream s;
  const int head_dim = c.hidden / c.heads;
  s << "def forward(self, tokens: Tensor, valid: Tensor) -> Tensor:\n";
  s << "    x = (tokens - self.norm_mean) * self.norm_inv_std * valid.unsqueeze(-1)\n";
  std::string h = "x";
  for (int i = 0; i < c.encoder_layers; ++i) {
    s << "    h = torch.relu(" << Linear(h, fmt::format("encoder.{}", 2 * i)) << ")\n";
    h = "h";
  }
  s << "    B = h.size(0)\n    T = h.size(1)\n";
  s << "    qkv = (" << Linear("h", "attention.in_proj") << ").chunk(3, -1)\n";
  s << fmt::format("    q = qkv[0].reshape([B, T, {0}, {1}]).transpose(1, 2)\n", c.heads, head_dim);
  s << fmt::format("    k = qkv[1].reshape([B, T, {0}, {1}]).transpose(1, 2)\n", c.heads, head_dim);
  s << fmt::format("    v = qkv[2].reshape([B, T, {0}, {1}]).transpose(1, 2)\n", c.heads, head_dim);
  s << fmt::format("    logits = torch.matmul(q, k.transpose(-2, -1)) / {:.17g}\n",
                   std::sqrt(static_cast<double>(head_dim)));
  s << "    logits = logits + (valid.unsqueeze(1).unsqueeze(1) - 1.0) * 1e9\n";
  s << "    context = torch.matmul(torch.softmax(logits, -1), v)\n";
  s << fmt::format("    context = context.transpose(1, 2).reshape([B, T, {}])\n", c.hidden);
  s << "    h = h + (" << Linear("context", "attention.out_proj") << ")\n";
  for (int b = 0; b < c.fc_blocks; ++b) {
    s << "    f = torch.relu(" << Linear("h", fmt::format("fc_blocks.{}.0", b)) << ")\n";
    s << "    h = h + torch.relu(" << Linear("f", fmt::format("fc_blocks.{}.2", b)) << ")\n";
  }
  s << "    per_token = (" << Linear("h", "decoder") << ").squeeze(-1)\n";
  s << "    return (per_token * valid).sum(1)\n";
  return s.str();
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
