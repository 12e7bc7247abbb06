// Diagonal Fisher of the LambdaRank loss per task group (see fisher.h).
#include "ucmoh/fisher.h"

#include <fmt/format.h>
#include <torch/torch.h>

#include <algorithm>
#include <random>

#include "cost_model_impl.h"
#include "lambda_rank_loss.h"

namespace ucmoh {

namespace {

using Group = std::vector<int32_t>;

// Deterministic grouping, as documented in fisher.h.
std::vector<Group> FisherGroups(const ProgramSet& set, const FisherOptions& o) {
  std::mt19937_64 rng(o.seed);
  std::vector<Group> groups;
  const size_t size = static_cast<size_t>(std::max(2, o.programs_per_group));
  for (const auto& task : set.tasks) {
    if (task.programs.size() < 2) continue;
    Group programs = task.programs;
    if (programs.size() > size) std::shuffle(programs.begin(), programs.end(), rng);
    const size_t chunks = (programs.size() + size - 1) / size;
    const size_t per_chunk = (programs.size() + chunks - 1) / chunks;
    for (size_t start = 0; start < programs.size(); start += per_chunk)
      groups.emplace_back(programs.begin() + start, programs.begin() + std::min(programs.size(), start + per_chunk));
    if (o.max_groups > 0 && groups.size() >= static_cast<size_t>(o.max_groups)) {
      groups.resize(o.max_groups);
      break;
    }
  }
  return groups;
}

torch::Tensor GroupLoss(CostModel::Impl& impl, const ProgramSet& set, const std::vector<float>& labels,
                        const Group& g, double pairwise_weight) {
  std::vector<float> y;
  y.reserve(g.size());
  for (int32_t i : g) y.push_back(labels[i]);
  return LambdaRankLoss(impl.Forward(MakeTokenBatch(set, g)), torch::tensor(y), pairwise_weight);
}

Status CheckInputs(const CostModel& model, const std::vector<Group>& groups) {
  if (!model.impl().normalizer.fitted())
    return Status::InvalidArgument("Fisher importance needs a trained model (no feature normalizer)");
  if (groups.empty()) return Status::InvalidArgument("Fisher importance: no task with at least two programs");
  return Status::Ok();
}

}  // namespace

Expected<Snapshot> ComputeFisher(const CostModel& model, const ProgramSet& set, const FisherOptions& options) {
  const auto groups = FisherGroups(set, options);
  UCMOH_RETURN_IF_ERROR(CheckInputs(model, groups));
  auto& impl = model.impl();
  impl.net->eval();
  const std::vector<float> labels = set.Labels();

  auto named = impl.net->named_parameters();
  std::vector<torch::Tensor> params;
  std::vector<bool> had_grad;
  std::vector<torch::Tensor> sums;
  for (auto& p : named) {
    had_grad.push_back(p.value().requires_grad());
    p.value().set_requires_grad(true);
    params.push_back(p.value());
    sums.push_back(torch::zeros(p.value().sizes(), torch::kDouble));
  }
  int64_t programs = 0;
  for (const auto& g : groups) {
    programs += static_cast<int64_t>(g.size());
    auto loss = GroupLoss(impl, set, labels, g, options.pairwise_weight) * options.loss_scale;
    auto grads = torch::autograd::grad({loss}, params, /*grad_outputs=*/{}, /*retain_graph=*/false,
                                       /*create_graph=*/false, /*allow_unused=*/true);
    for (size_t i = 0; i < params.size(); ++i)
      if (grads[i].defined()) sums[i] += grads[i].detach().to(torch::kDouble).pow(2);
  }
  for (size_t i = 0; i < params.size(); ++i) params[i].set_requires_grad(had_grad[i]);

  Snapshot s;
  s.method = "fisher";
  s.intrinsics = set.Intrinsics();
  size_t i = 0;
  for (auto& p : named) {
    SnapshotTensor t;
    t.name = p.key();
    t.shape = p.value().sizes().vec();
    auto anchor = p.value().detach().contiguous().view(-1);
    t.anchor.assign(anchor.data_ptr<float>(), anchor.data_ptr<float>() + anchor.numel());
    auto mean = (sums[i] / static_cast<double>(groups.size())).to(torch::kFloat).contiguous().view(-1);
    t.importance.assign(mean.data_ptr<float>(), mean.data_ptr<float>() + mean.numel());
    s.tensors.push_back(std::move(t));
    ++i;
  }
  s.metadata = {{"loss", "lambdarank"},
                {"estimator", "empirical-diagonal-fisher"},
                {"reduction", "mean over task groups of squared gradients"},
                {"groups", std::to_string(groups.size())},
                {"programs", std::to_string(programs)},
                {"programs_per_group", std::to_string(options.programs_per_group)},
                {"seed", std::to_string(options.seed)},
                {"pairwise_weight", fmt::format("{:g}", options.pairwise_weight)},
                {"architecture", impl.config.architecture},
                {"hidden", std::to_string(impl.config.hidden)}};
  return s;
}

Expected<double> RankingLoss(const CostModel& model, const ProgramSet& set, const FisherOptions& options) {
  const auto groups = FisherGroups(set, options);
  UCMOH_RETURN_IF_ERROR(CheckInputs(model, groups));
  auto& impl = model.impl();
  torch::NoGradGuard no_grad;
  impl.net->eval();
  const std::vector<float> labels = set.Labels();
  double sum = 0;
  for (const auto& g : groups) sum += GroupLoss(impl, set, labels, g, options.pairwise_weight).item<double>();
  return sum / static_cast<double>(groups.size());
}

}  // namespace ucmoh
