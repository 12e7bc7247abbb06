// CostModel: creation, prediction, copies. Its file format is model_file.cpp.
#include "ucmoh/cost_model.h"

#include <algorithm>
#include <cstdio>
#include <numeric>

#include "cost_model_impl.h"
#include "scoring_plan.h"

namespace ucmoh {

namespace {

Status ValidateConfig(const NetworkConfig& c) {
  if (c.hidden < 1 || c.heads < 1 || c.hidden % c.heads != 0)
    return Status::InvalidArgument("network: hidden (" + std::to_string(c.hidden) +
                                   ") must be a positive multiple of heads (" +
                                   std::to_string(c.heads) + ")");
  if (c.architecture != "ucmoh" && c.architecture != "mlp")
    return Status::InvalidArgument("network: architecture must be \"ucmoh\" or \"mlp\", not \"" +
                                   c.architecture + "\"");
  // The upper bounds are far past any cost model's size; they keep a corrupt
  // model file from allocating gigabytes before its tensors are checked.
  if (c.hidden > 1024 || c.heads > 64) return Status::InvalidArgument("network: hidden must be <= 1024 and heads <= 64");
  if (c.max_tokens < 1 || c.max_tokens > 1024) return Status::InvalidArgument("network: max_tokens must be in [1, 1024]");
  if (c.encoder_layers < 1 || c.encoder_layers > 16 || c.fc_blocks < 0 || c.fc_blocks > 16)
    return Status::InvalidArgument("network: encoder_layers must be in [1, 16] and fc_blocks in [0, 16]");
  return Status::Ok();
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

Expected<ScoringPrecision> ParseScoringPrecision(const std::string& name) {
  if (name == "float32") return ScoringPrecision::kFloat32;
  if (name == "bf16") return ScoringPrecision::kBfloat16;
  return Status::InvalidArgument("unknown scoring precision '" + name + "' (float32, bf16)");
}

Expected<std::vector<float>> CostModel::Predict(const ProgramSet& set, int batch_size) const {
  PredictOptions options;
  options.batch_size = batch_size;
  return Predict(set, options);
}

Expected<std::vector<float>> CostModel::Predict(const ProgramSet& set, const PredictOptions& options) const {
  if (!impl_->normalizer.fitted())
    return Status::InvalidArgument("model has not been trained: no feature normalizer");
  const bool bf16 = options.precision == ScoringPrecision::kBfloat16;
  if (ScoringPlan::Supports(*impl_)) return ScoreWithPlan(*impl_, set, options.precision);
  if (bf16) return Status::Unsupported("bf16 scoring: only the ucmoh architecture has a bf16 plan");
  const int batch_size = options.batch_size;
  torch::NoGradGuard no_grad;
  impl_->net->eval();
  // The MLP baseline: programs of similar length share a batch, so little is padded.
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
