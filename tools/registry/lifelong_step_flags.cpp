#include "lifelong_step_flags.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace ucmoh::cli {

void LifelongStepFlags::Add(CLI::App& sub, LifelongStepOptions& o, const std::vector<LifelongMethod>& methods) {
  for (LifelongMethod m : methods) allowed.push_back(LifelongMethodName(m));
  method = LifelongMethodName(o.method);
  sub.add_option("--method", method, allowed.empty() ? "replay | ewc+replay | ewc | online-ewc | finetune | joint | separate"
                                                     : fmt::format("{}", fmt::join(allowed, " | ")))
      ->capture_default_str();
  sub.add_option("--lambda", o.lambda, "EWC strength, on importance normalised to mean 1")->capture_default_str();
  sub.add_option("--lambda-grid", o.lambda_grid,
                 "Choose lambda per step from these (comma-separated) by the validation rule (docs/lifelong.md)")
      ->delimiter(',');
  sub.add_option("--gamma", o.gamma, "online-ewc: decay of older importance")->capture_default_str();
  sub.add_option("--rehearsal", o.rehearsal_programs,
                 "Programs kept per learned intrinsic for replay (and as many for validation)")
      ->capture_default_str();
  sub.add_option("--rehearsal-seed", o.rehearsal_seed, "Seed of the rehearsal samples")->capture_default_str();
  sub.add_flag("--refit-normalizer", o.refit_normalizer,
               "Refit the feature normaliser at every step on the new and the replayed programs");
  sub.add_option("--epochs", o.training.epochs, "Maximum epochs per step")->capture_default_str();
  sub.add_option("--lr", o.training.learning_rate, "Adam learning rate")->capture_default_str();
  sub.add_option("--patience", o.training.patience, "Early-stopping patience")->capture_default_str();
  sub.add_option("--seed", o.training.seed, "Training seed")->capture_default_str();
  sub.add_option("--hidden", o.network.hidden, "Hidden width (first step only)")->capture_default_str();
  sub.add_option("--heads", o.network.heads, "Attention heads; must divide --hidden (first step only)")
      ->capture_default_str();
}

Status LifelongStepFlags::Apply(LifelongStepOptions& o) const {
  auto parsed = ParseLifelongMethod(method);
  if (!parsed.ok()) return parsed.status();
  if (!allowed.empty() && std::find(allowed.begin(), allowed.end(), method) == allowed.end())
    return Status::InvalidArgument(fmt::format("--method {}: this command takes {}", method, fmt::join(allowed, ", ")));
  o.method = *parsed;
  return Status::Ok();
}

nlohmann::json StepOptionsJson(const LifelongStepOptions& o) {
  return {{"method", LifelongMethodName(o.method)},
          {"lambda", o.lambda},
          {"lambda_grid", o.lambda_grid},
          {"gamma", o.gamma},
          {"rehearsal_programs", o.rehearsal_programs},
          {"rehearsal_seed", o.rehearsal_seed},
          {"refit_normalizer", o.refit_normalizer},
          {"epochs", o.training.epochs},
          {"learning_rate", o.training.learning_rate},
          {"patience", o.training.patience},
          {"seed", o.training.seed},
          {"hidden", o.network.hidden},
          {"heads", o.network.heads}};
}

}  // namespace ucmoh::cli
