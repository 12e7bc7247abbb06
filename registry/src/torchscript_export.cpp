// pull: a CostModel as a TorchScript module (built in C++ with
// torch::jit::Module::define) plus a manifest. The TorchScript source mirrors
// core/src/ucmoh_network.cpp and feature_normalizer.cpp op for op.
// tests/torchscript_export_test.cpp (C++) and tests/pulled_model_python_test.py
// (Python) check the two copies agree for every configuration the CLI trains
// and every intrinsic with data (docs/registry.md, last section).
#include <fmt/format.h>
#include <torch/script.h>
#include <torch/torch.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cost_model_impl.h"
#include "ucmoh/features.h"
#include "ucmoh/file_bytes.h"
#include "ucmoh/registry/registry_ops.h"
#include "ucmoh/sha256.h"
#include "version_data.h"

namespace ucmoh::registry {

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

Expected<PullResult> PullVersion(const RegistryStore& store, const std::string& ref, const std::string& dir) {
  auto number = store.ResolveRef(ref);
  if (!number.ok()) return number.status();
  auto version = store.GetVersion(*number);
  if (!version.ok()) return version.status();
  auto model = LoadVersionModel(store, *number);  // verifies the weights' sha256
  if (!model.ok()) return model.status();
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Status::IOError(dir + ": " + ec.message());
  PullResult result;
  result.version = *number;
  result.model_path = (std::filesystem::path(dir) / "model.pt").string();
  result.manifest_path = (std::filesystem::path(dir) / "manifest.json").string();
  UCMOH_RETURN_IF_ERROR(ExportTorchScript(*model, result.model_path));
  // The native weights as well, for libucmoh (docs/compilers.md), checked
  // against the manifest's weights_sha256 when opened: the stored blob as it
  // is, or re-encoded when the version was written in model file format 1.
  auto weights = store.GetBlob(version->weights_sha256);
  if (!weights.ok()) return weights.status();
  if (ModelFileFormat(*weights) != kModelFileFormatVersion) weights = model->ToBytes();
  if (!weights.ok()) return weights.status();
  UCMOH_RETURN_IF_ERROR(WriteFileAtomically((std::filesystem::path(dir) / "weights.bin").string(), *weights));
  // Its forgetting state, so libucmoh can update the pulled model under it.
  UCMOH_RETURN_IF_ERROR(WriteVersionState(store, *version, (std::filesystem::path(dir) / "forgetting").string()));
  auto sha = Sha256OfFile(result.model_path);
  if (!sha.ok()) return sha.status();
  result.model_sha256 = *sha;

  nlohmann::json rows = nlohmann::json::array();
  for (const auto& r : version->evaluation.rows)
    rows.push_back({{"intrinsic", r.intrinsic}, {"pca", r.pca}, {"top1", r.top1}, {"top5", r.top5}});
  const auto& c = model->config();
  nlohmann::json manifest = {
      {"model", version->name},
      {"registry_version", version->number},
      {"ref", ref},
      {"parent", version->parent},
      {"intrinsics", version->intrinsics},
      {"feature_schema", {{"version", kFeatureSchemaVersion}, {"width", kFeatureDim}}},
      {"weights", "weights.bin"},
      {"forgetting", "forgetting"},
      {"inputs", {{"tokens", "float32 [B, T, " + std::to_string(kFeatureDim) + "], raw (unnormalized) features"},
                  {"valid", "float32 [B, T], 1 for real tokens, 0 for padding"}}},
      {"output", "float32 [B] scores, higher = predicted faster"},
      {"network",
       {{"architecture", c.architecture}, {"hidden", c.hidden}, {"heads", c.heads},
        {"encoder_layers", c.encoder_layers}, {"fc_blocks", c.fc_blocks}}},
      {"metrics", {{"acc", version->evaluation.acc}, {"bwt", version->evaluation.bwt}, {"per_intrinsic", rows}}},
      {"weights_sha256", Sha256Hex(*weights)},
      {"model_pt_sha256", result.model_sha256},
      {"created_at", version->created_at},
      {"tool_version", version->tool_version}};
  UCMOH_RETURN_IF_ERROR(WriteFileAtomically(result.manifest_path, manifest.dump(2) + "\n"));
  return result;
}

}  // namespace ucmoh::registry
