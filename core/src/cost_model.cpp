// CostModel: creation, prediction and the model file format (a LibTorch
// archive: network parameters, normalizer, and a JSON metadata blob).
#include "ucmoh/cost_model.h"

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <nlohmann/json.hpp>

#include "cost_model_impl.h"

namespace ucmoh {

namespace {

constexpr const char* kModelFormat = "ucmoh-model";
constexpr int kModelFormatVersion = 1;

Status ValidateConfig(const NetworkConfig& c) {
  if (c.hidden < 1 || c.heads < 1 || c.hidden % c.heads != 0)
    return Status::InvalidArgument("network: hidden (" + std::to_string(c.hidden) +
                                   ") must be a positive multiple of heads (" +
                                   std::to_string(c.heads) + ")");
  if (c.architecture != "ucmoh" && c.architecture != "mlp")
    return Status::InvalidArgument("network: architecture must be \"ucmoh\" or \"mlp\", not \"" +
                                   c.architecture + "\"");
  if (c.max_tokens < 1) return Status::InvalidArgument("network: max_tokens must be >= 1");
  if (c.encoder_layers < 1 || c.fc_blocks < 0)
    return Status::InvalidArgument("network: encoder_layers must be >= 1 and fc_blocks >= 0");
  return Status::Ok();
}

nlohmann::json MetadataJson(const CostModel::Impl& m) {
  const NetworkConfig& c = m.config;
  return {{"format", kModelFormat},
          {"version", kModelFormatVersion},
          {"feature_schema_version", kFeatureSchemaVersion},
          {"feature_dim", kFeatureDim},
          {"config", {{"architecture", c.architecture}, {"max_tokens", c.max_tokens}, {"hidden", c.hidden}, {"heads", c.heads}, {"encoder_layers", c.encoder_layers},
                      {"fc_blocks", c.fc_blocks}, {"seed", c.seed}}},
          {"learned_intrinsics", m.learned_intrinsics}};
}

torch::Tensor StringTensor(const std::string& s) {
  return torch::from_blob(const_cast<char*>(s.data()), {static_cast<int64_t>(s.size())}, torch::kUInt8).clone();
}

std::string TensorString(const torch::Tensor& t) {
  auto c = t.contiguous();
  return std::string(reinterpret_cast<const char*>(c.data_ptr<uint8_t>()), static_cast<size_t>(c.numel()));
}

Expected<NetworkConfig> ConfigFromMetadata(const nlohmann::json& meta, const std::string& path) {
  if (meta.value("format", "") != kModelFormat)
    return Status::Corruption(path + ": not a UCMoH model file");
  if (meta.value("version", 0) > kModelFormatVersion)
    return Status::Unsupported(path + ": model format version " + std::to_string(meta.value("version", 0)) +
                               " is newer than this tool's " + std::to_string(kModelFormatVersion) +
                               "; upgrade the tool");
  if (meta.value("feature_schema_version", 0) != kFeatureSchemaVersion ||
      meta.value("feature_dim", 0) != kFeatureDim)
    return Status::Unsupported(path + ": model was trained on feature schema v" +
                               std::to_string(meta.value("feature_schema_version", 0)) + " (width " +
                               std::to_string(meta.value("feature_dim", 0)) + "), this tool featurizes v" +
                               std::to_string(kFeatureSchemaVersion) + "; retrain it");
  const auto& c = meta.at("config");
  NetworkConfig config;
  config.architecture = c.value("architecture", "ucmoh");
  config.max_tokens = c.value("max_tokens", 16);
  config.hidden = c.at("hidden");
  config.heads = c.at("heads");
  config.encoder_layers = c.at("encoder_layers");
  config.fc_blocks = c.at("fc_blocks");
  config.seed = c.at("seed");
  return config;
}

}  // namespace

Expected<CostModel> CostModel::Create(const NetworkConfig& config) {
  UCMOH_RETURN_IF_ERROR(ValidateConfig(config));
  auto impl = std::make_shared<Impl>();
  impl->config = config;
  torch::manual_seed(config.seed);
  impl->net = MakeScoringNetwork(config);
  return CostModel(std::move(impl));
}

void CostModel::FitNormalizer(const ProgramSet& set) { impl_->normalizer.Fit(set); }

Status CostModel::Save(const std::string& path) const {
  const std::string tmp = path + ".tmp";
  try {
    torch::serialize::OutputArchive archive;
    torch::serialize::OutputArchive net_archive;
    impl_->net->save(net_archive);
    archive.write("net", net_archive);
    archive.write("meta", StringTensor(MetadataJson(*impl_).dump()));
    if (impl_->normalizer.fitted()) {
      archive.write("normalizer.mean", impl_->normalizer.mean);
      archive.write("normalizer.inv_std", impl_->normalizer.inv_std);
    }
    archive.save_to(tmp);
  } catch (const std::exception& e) {
    std::remove(tmp.c_str());
    return Status::IOError(path + ": cannot save model: " + e.what());
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) return Status::IOError(path + ": rename failed");
  return Status::Ok();
}

Expected<CostModel> CostModel::Load(const std::string& path) {
  try {
    torch::serialize::InputArchive archive;
    archive.load_from(path);
    torch::Tensor meta_tensor;
    archive.read("meta", meta_tensor);
    auto meta = nlohmann::json::parse(TensorString(meta_tensor));
    auto config = ConfigFromMetadata(meta, path);
    if (!config.ok()) return config.status();
    auto model = Create(*config);
    if (!model.ok()) return model.status();
    torch::serialize::InputArchive net_archive;
    archive.read("net", net_archive);
    model->impl_->net->load(net_archive);
    torch::Tensor mean, inv_std;
    if (archive.try_read("normalizer.mean", mean) && archive.try_read("normalizer.inv_std", inv_std)) {
      model->impl_->normalizer.mean = mean;
      model->impl_->normalizer.inv_std = inv_std;
    }
    model->impl_->learned_intrinsics = meta.value("learned_intrinsics", std::vector<std::string>{});
    return model;
  } catch (const std::exception& e) {
    std::string what = e.what();
    what = what.substr(0, what.find('\n'));
    return Status::Corruption(path + ": cannot load model: " + what);
  }
}

Expected<std::vector<float>> CostModel::Predict(const ProgramSet& set, int batch_size) const {
  if (!impl_->normalizer.fitted())
    return Status::InvalidArgument("model has not been trained: no feature normalizer");
  torch::NoGradGuard no_grad;
  impl_->net->eval();
  // Programs of similar length share a batch, so little is padded.
  std::vector<int32_t> order(set.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
    return set.tokens[a].num_tokens < set.tokens[b].num_tokens;
  });
  // Attention holds [batch, heads, tokens, tokens] logits: cap the padded
  // tokens per batch so long CPU programs (50+ tokens) do not allocate
  // hundreds of MiB per batch.
  constexpr int64_t kMaxTokensPerBatch = 1 << 16;
  std::vector<float> scores(set.size());
  for (size_t start = 0; start < order.size();) {
    const int longest = set.tokens[order[std::min(order.size(), start + batch_size) - 1]].num_tokens;
    const size_t count = static_cast<size_t>(std::max<int64_t>(
        1, std::min<int64_t>(batch_size, kMaxTokensPerBatch / std::max(1, longest))));
    std::vector<int32_t> indices(order.begin() + start, order.begin() + std::min(order.size(), start + count));
    auto out = impl_->Forward(MakeTokenBatch(set, indices)).contiguous();
    for (size_t i = 0; i < indices.size(); ++i) scores[indices[i]] = out.data_ptr<float>()[i];
    start += indices.size();
  }
  return scores;
}

const NetworkConfig& CostModel::config() const { return impl_->config; }

int64_t CostModel::num_parameters() const {
  int64_t n = 0;
  for (const auto& p : impl_->net->parameters()) n += p.numel();
  return n;
}

std::vector<NamedValues> CostModel::Parameters() const {
  std::vector<NamedValues> out;
  for (const auto& p : impl_->net->named_parameters()) {
    auto flat = p.value().detach().contiguous().view(-1);
    out.push_back({p.key(), std::vector<float>(flat.data_ptr<float>(), flat.data_ptr<float>() + flat.numel())});
  }
  return out;
}

const std::vector<std::string>& CostModel::learned_intrinsics() const { return impl_->learned_intrinsics; }

void CostModel::set_learned_intrinsics(std::vector<std::string> intrinsics) {
  impl_->learned_intrinsics = std::move(intrinsics);
}

CostModel CostModel::Clone() const {
  auto copy = std::make_shared<Impl>();
  copy->config = impl_->config;
  copy->net = MakeScoringNetwork(impl_->config);
  {
    torch::NoGradGuard no_grad;
    auto src = impl_->net->named_parameters();
    for (auto& p : copy->net->named_parameters()) p.value().copy_(src[p.key()]);
  }
  if (impl_->normalizer.fitted()) {
    copy->normalizer.mean = impl_->normalizer.mean.clone();
    copy->normalizer.inv_std = impl_->normalizer.inv_std.clone();
  }
  copy->learned_intrinsics = impl_->learned_intrinsics;
  return CostModel(std::move(copy));
}

}  // namespace ucmoh
