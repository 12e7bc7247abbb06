// The model file (format 2): what `registry train -o` writes, what the
// registry keeps as a version's weights blob and what `pull` hands compilers.
// Plain data only: LibTorch never parses any part of it (format 1, a
// TorchScript archive, is read by model_archive_v1.cpp, and only on request).
// Framed by ucmoh/framed_blob.h (magic "UCMOHMDL"); the payload is
//
//   str      metadata JSON: format, version, feature schema and width,
//            network config, learned intrinsics
//   u32 n,   n × tensor: str name, u32 rank, rank × i64 shape, u64 count,
//            count × f32
//
// The tensors are the network's parameters and buffers, by their own names,
// then "normalizer.mean" and "normalizer.inv_std" when the model is trained.
// Layout in docs/registry.md, "Model files".
#include <torch/torch.h>

#include <limits>
#include <map>
#include <optional>
#include <nlohmann/json.hpp>

#include "byte_codec.h"
#include "cost_model_impl.h"
#include "ucmoh/features.h"
#include "ucmoh/file_bytes.h"
#include "ucmoh/framed_blob.h"

namespace ucmoh {

namespace {

constexpr const char* kModelFormat = "ucmoh-model";

nlohmann::json MetadataJson(const CostModel::Impl& m) {
  const NetworkConfig& c = m.config;
  return {{"format", kModelFormat},
          {"version", kModelFileFormatVersion},
          {"feature_schema_version", kFeatureSchemaVersion},
          {"feature_dim", kFeatureDim},
          {"config", {{"architecture", c.architecture}, {"max_tokens", c.max_tokens}, {"hidden", c.hidden}, {"heads", c.heads}, {"encoder_layers", c.encoder_layers},
                      {"fc_blocks", c.fc_blocks}, {"seed", c.seed}}},
          {"learned_intrinsics", m.learned_intrinsics}};
}

// Every tensor a model file holds, by name, in the order it is written.
std::vector<std::pair<std::string, torch::Tensor>> NamedTensors(const CostModel::Impl& m) {
  std::vector<std::pair<std::string, torch::Tensor>> out;
  for (const auto& p : m.net->named_parameters()) out.emplace_back(p.key(), p.value());
  for (const auto& b : m.net->named_buffers()) out.emplace_back(b.key(), b.value());
  if (m.normalizer.fitted()) {
    out.emplace_back("normalizer.mean", m.normalizer.mean);
    out.emplace_back("normalizer.inv_std", m.normalizer.inv_std);
  }
  return out;
}

void WriteTensor(ByteWriter& w, const std::string& name, const torch::Tensor& tensor) {
  auto t = tensor.detach().to(torch::kFloat).contiguous();
  w.Str(name);
  w.U32(static_cast<uint32_t>(t.dim()));
  for (int64_t d : t.sizes()) w.I64(d);
  w.U64(static_cast<uint64_t>(t.numel()));
  w.F32s(t.data_ptr<float>(), static_cast<size_t>(t.numel()));
}

struct StoredTensor {
  std::vector<int64_t> shape;
  std::vector<float> values;
};

struct ModelPayload {
  nlohmann::json metadata;
  std::map<std::string, StoredTensor> tensors;
};

Expected<ModelPayload> ReadPayload(const std::string& bytes, const FramedPayload& frame) {
  const Status bad = Status::Corruption("model file payload is malformed");
  ByteReader r(bytes, frame.begin, frame.end);
  std::string metadata;
  uint32_t n = 0;
  if (!r.Str(&metadata) || !r.U32(&n)) return bad;
  ModelPayload payload;
  payload.metadata = nlohmann::json::parse(metadata, nullptr, /*allow_exceptions=*/false);
  if (!payload.metadata.is_object()) return Status::Corruption("model file metadata is not a JSON object");
  for (uint32_t i = 0; i < n; ++i) {
    std::string name;
    StoredTensor t;
    uint32_t rank = 0;
    if (!r.Str(&name) || !r.U32(&rank) || rank > r.remaining() / 8) return bad;
    t.shape.resize(rank);
    for (auto& d : t.shape)
      if (!r.I64(&d)) return bad;
    uint64_t count = 0;
    int64_t expected = 0;
    if (!r.U64(&count) || !ShapeElementCount(t.shape, &expected) || count != static_cast<uint64_t>(expected) ||
        !r.F32s(&t.values, count))
      return bad;
    if (!payload.tensors.emplace(std::move(name), std::move(t)).second)
      return Status::Corruption("model file holds a tensor twice");
  }
  if (r.remaining() != 0) return bad;
  return payload;
}

}  // namespace

// An int field of the metadata; a float, a string or an out-of-range number
// is corruption (nlohmann's own conversion of those is undefined behaviour).
static Expected<int> MetaInt(const nlohmann::json& j, const char* key, std::optional<int> fallback) {
  auto it = j.find(key);
  if (it == j.end() && fallback) return *fallback;
  if (it == j.end() || !it->is_number_integer() || *it < std::numeric_limits<int>::min() ||
      *it > std::numeric_limits<int>::max())
    return Status::Corruption(std::string("model file metadata: '") + key + "' is not an int");
  return it->get<int>();
}

Expected<NetworkConfig> NetworkConfigFromModelMetadata(const nlohmann::json& meta) {
  if (!meta.is_object() || meta.value("format", "") != kModelFormat) return Status::Corruption("not a UCMoH model file");
  auto version = MetaInt(meta, "version", 0);
  auto schema = MetaInt(meta, "feature_schema_version", 0);
  auto dim = MetaInt(meta, "feature_dim", 0);
  for (const auto* e : {&version, &schema, &dim}) UCMOH_RETURN_IF_ERROR(e->status());
  if (*version > kModelFileFormatVersion)
    return Status::Unsupported("model format version " + std::to_string(*version) + " is newer than this tool's " +
                               std::to_string(kModelFileFormatVersion) + "; upgrade the tool");
  if (*schema != kFeatureSchemaVersion || *dim != kFeatureDim)
    return Status::Unsupported("model was trained on feature schema v" + std::to_string(*schema) + " (width " +
                               std::to_string(*dim) + "), this tool featurizes v" +
                               std::to_string(kFeatureSchemaVersion) + "; retrain it");
  auto c = meta.find("config");
  if (c == meta.end() || !c->is_object()) return Status::Corruption("model file metadata: no 'config' object");
  NetworkConfig config;
  config.architecture = c->value("architecture", "ucmoh");
  int* fields[] = {&config.max_tokens, &config.hidden, &config.heads, &config.encoder_layers, &config.fc_blocks};
  const char* names[] = {"max_tokens", "hidden", "heads", "encoder_layers", "fc_blocks"};
  for (size_t i = 0; i < std::size(fields); ++i) {
    auto v = MetaInt(*c, names[i], i == 0 ? std::optional<int>(16) : std::nullopt);
    UCMOH_RETURN_IF_ERROR(v.status());
    *fields[i] = *v;
  }
  auto seed = c->find("seed");
  if (seed == c->end() || !seed->is_number_integer()) return Status::Corruption("model file metadata: 'seed' is not an integer");
  config.seed = seed->get<uint64_t>();
  return config;
}

Expected<std::string> CostModel::ToBytes() const {
  ByteWriter p;
  p.Str(MetadataJson(*impl_).dump());
  const auto tensors = NamedTensors(*impl_);
  p.U32(static_cast<uint32_t>(tensors.size()));
  for (const auto& [name, tensor] : tensors) WriteTensor(p, name, tensor);
  return FrameBlob(kModelFileFrame, p.out);
}

Status CostModel::Save(const std::string& path) const {
  auto bytes = ToBytes();
  if (!bytes.ok()) return bytes.status().WithContext(path);
  return WriteFileAtomically(path, *bytes);
}

namespace {

Status RestoreTensor(const std::string& name, torch::Tensor& into, const StoredTensor& stored) {
  if (std::vector<int64_t>(into.sizes().begin(), into.sizes().end()) != stored.shape)
    return Status::Corruption("model file: tensor '" + name + "' has the wrong shape for its network config");
  torch::NoGradGuard no_grad;
  into.copy_(torch::from_blob(const_cast<float*>(stored.values.data()), into.sizes(), torch::kFloat));
  return Status::Ok();
}

// Copies every stored tensor into the freshly created network of `m`: each
// must be there, with its shape, and nothing else may be.
Status RestoreTensors(CostModel::Impl& m, std::map<std::string, StoredTensor>& stored) {
  for (auto& [name, tensor] : NamedTensors(m)) {
    auto found = stored.find(name);
    if (found == stored.end()) return Status::Corruption("model file: no tensor '" + name + "'");
    UCMOH_RETURN_IF_ERROR(RestoreTensor(name, tensor, found->second));
    stored.erase(found);
  }
  auto mean = stored.find("normalizer.mean");
  auto inv_std = stored.find("normalizer.inv_std");
  if ((mean == stored.end()) != (inv_std == stored.end()))
    return Status::Corruption("model file: the normalizer needs both its mean and its inv_std");
  if (mean != stored.end()) {
    const std::vector<int64_t> shape{kFeatureDim};
    if (mean->second.shape != shape || inv_std->second.shape != shape)
      return Status::Corruption("model file: the normalizer is not " + std::to_string(kFeatureDim) + " wide");
    m.normalizer.mean = torch::tensor(mean->second.values);
    m.normalizer.inv_std = torch::tensor(inv_std->second.values);
    stored.erase(mean);
    stored.erase(stored.find("normalizer.inv_std"));
  }
  if (!stored.empty()) return Status::Corruption("model file: unknown tensor '" + stored.begin()->first + "'");
  return Status::Ok();
}

Expected<CostModel> ModelFromPayload(ModelPayload& payload) {
  try {
    auto config = NetworkConfigFromModelMetadata(payload.metadata);
    if (!config.ok()) return config.status();
    auto model = CostModel::Create(*config);
    if (!model.ok()) return Status::Corruption("model file: " + model.status().message());
    UCMOH_RETURN_IF_ERROR(RestoreTensors(model->impl(), payload.tensors));
    model->set_learned_intrinsics(payload.metadata.value("learned_intrinsics", std::vector<std::string>{}));
    return model;
  } catch (const nlohmann::json::exception& e) {
    return Status::Corruption(std::string("model file metadata: ") + e.what());
  }
}

}  // namespace

int ModelFileFormat(const std::string& bytes) {
  if (HasMagic(kModelFileFrame, bytes)) return kModelFileFormatVersion;
  return IsModelArchiveV1(bytes) ? 1 : 0;
}

Expected<CostModel> CostModel::FromBytes(const std::string& bytes, const ModelReadOptions& options) {
  if (IsModelArchiveV1(bytes)) {
    if (!options.accept_format1)
      return Status::Unsupported(
          "model file format 1 (a TorchScript archive, whose code LibTorch parses) is read only from files you "
          "trust: convert it once with `registry convert-model FILE NEW` (docs/registry.md, \"Model files\")");
    return LoadModelArchiveV1(bytes);
  }
  auto frame = UnframeBlob(kModelFileFrame, bytes);
  if (!frame.ok()) return frame.status();
  auto payload = ReadPayload(bytes, *frame);
  if (!payload.ok()) return payload.status();
  return ModelFromPayload(*payload);
}

Expected<CostModel> CostModel::Load(const std::string& path, const ModelReadOptions& options) {
  auto bytes = ReadFileBytes(path);
  if (!bytes.ok()) return bytes.status();
  auto model = FromBytes(*bytes, options);
  if (!model.ok()) return model.status().WithContext(path);
  return model;
}

}  // namespace ucmoh
