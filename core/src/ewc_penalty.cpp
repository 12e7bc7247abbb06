// The EWC penalty as a training term (see ewc.h).
#include <torch/torch.h>

#include <algorithm>

#include "cost_model_impl.h"
#include "training_penalty.h"
#include "ucmoh/ewc.h"

namespace ucmoh {

namespace {

class QuadraticPenalty final : public EwcPenalty {
 public:
  struct Term {
    std::string name;
    torch::Tensor anchor, importance;  // shaped like the parameter
  };

  QuadraticPenalty(const std::vector<Snapshot>& snapshots, double lambda) : lambda_(lambda) {
    if (lambda == 0) return;
    for (const auto& s : snapshots)
      for (const auto& t : s.tensors) {
        auto shape = t.shape;
        auto anchor = torch::tensor(t.anchor, torch::kFloat).reshape(shape);
        auto importance = torch::tensor(t.importance, torch::kFloat).reshape(shape);
        terms_.push_back({t.name, anchor, importance});
      }
  }

  torch::Tensor Evaluate(const torch::OrderedDict<std::string, torch::Tensor>& params) const override {
    torch::Tensor total = torch::zeros({});
    for (const auto& term : terms_) {
      const torch::Tensor* p = params.find(term.name);
      if (!p || p->sizes() != term.anchor.sizes()) continue;
      total = total + (term.importance * (*p - term.anchor).pow(2)).sum();
    }
    return total * lambda_;
  }

 private:
  double lambda_;
  std::vector<Term> terms_;
};

}  // namespace

std::shared_ptr<const EwcPenalty> MakeEwcPenalty(const std::vector<Snapshot>& snapshots, double lambda) {
  return std::make_shared<QuadraticPenalty>(snapshots, lambda);
}

double EwcPenaltyValue(const EwcPenalty& penalty, const CostModel& model) {
  torch::NoGradGuard no_grad;
  return penalty.Evaluate(model.impl().net->named_parameters()).item<double>();
}

Status CheckSnapshotFits(const Snapshot& snapshot, const CostModel& model) {
  auto params = model.impl().net->named_parameters();
  for (const auto& t : snapshot.tensors) {
    const torch::Tensor* p = params.find(t.name);
    if (!p) return Status::InvalidArgument("snapshot tensor '" + t.name + "' is not a parameter of this model");
    if (p->sizes().vec() != t.shape)
      return Status::InvalidArgument("snapshot tensor '" + t.name + "' has another shape than the model's");
  }
  return Status::Ok();
}

Expected<Snapshot> MergeOnline(const Snapshot& old, const Snapshot& fresh, double gamma) {
  UCMOH_RETURN_IF_ERROR(CheckSameLayout(old, fresh));
  if (!(gamma >= 0)) return Status::InvalidArgument("online EWC: gamma must be >= 0");
  Snapshot merged;
  merged.method = "online";
  merged.intrinsics = old.intrinsics;
  for (const auto& in : fresh.intrinsics)
    if (std::find(merged.intrinsics.begin(), merged.intrinsics.end(), in) == merged.intrinsics.end())
      merged.intrinsics.push_back(in);
  merged.tensors = fresh.tensors;  // anchor: the latest parameters
  for (size_t i = 0; i < merged.tensors.size(); ++i) {
    auto& imp = merged.tensors[i].importance;
    const auto& prev = old.tensors[i].importance;
    for (size_t k = 0; k < imp.size(); ++k)
      imp[k] = static_cast<float>(gamma * static_cast<double>(prev[k]) + static_cast<double>(imp[k]));
  }
  auto count = [](const Snapshot& s) -> int64_t {
    auto it = s.metadata.find("merged");
    return it == s.metadata.end() ? 1 : std::stoll(it->second);
  };
  merged.metadata = fresh.metadata;
  merged.metadata["gamma"] = std::to_string(gamma);
  merged.metadata["merged"] = std::to_string(count(old) + count(fresh));
  merged.metadata["reduction"] = "online: gamma * previous importance + this step's Fisher";
  return merged;
}

}  // namespace ucmoh
