// pull: a version's files in a folder: the TorchScript model
// (ucmoh/torchscript_export.h), the native weights, the forgetting state and
// a manifest.
#include <filesystem>
#include <nlohmann/json.hpp>

#include "ucmoh/features.h"
#include "ucmoh/file_bytes.h"
#include "ucmoh/registry/registry_ops.h"
#include "ucmoh/sha256.h"
#include "ucmoh/torchscript_export.h"
#include "version_data.h"

namespace ucmoh::registry {

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
