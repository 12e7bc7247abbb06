// The options of one lifelong step, and the one list of them that everything
// naming them reads: the CLI's flags (tools/registry/lifelong_step_flags.cpp),
// a registry version's hyper-parameters and StepOptionsOf (registry), the
// server's add-intrinsic jobs and `registry lifelong --json`. An option added
// to VisitStepOptions is a flag, a stored hyper-parameter and a job key at once.
#pragma once

#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "ucmoh/cost_model.h"
#include "ucmoh/params.h"
#include "ucmoh/status.h"
#include "ucmoh/training.h"

namespace ucmoh {

enum class LifelongMethod {
  kReplay,     // replay of the earlier intrinsics' rehearsal samples (the default: docs/benchmarks.md)
  kEwcReplay,  // EWC penalty + replay
  kEwc,        // one EWC penalty term per earlier intrinsic (separate snapshots)
  kOnlineEwc,  // one running penalty: importance γ·F_old + F_new, anchored at the latest θ
  kFinetune,   // plain sequential fine-tuning (the forgetting baseline)
  kJoint,      // lifelong.h only: from scratch on everything seen so far (upper bound)
  kSeparate,   // lifelong.h only: one model per intrinsic
};
// replay | ewc+replay | ewc | online-ewc | finetune | joint | separate
Expected<LifelongMethod> ParseLifelongMethod(const std::string& name);
const char* LifelongMethodName(LifelongMethod method);
bool MethodUsesEwc(LifelongMethod method);
bool MethodReplays(LifelongMethod method);

struct LifelongStepOptions {
  LifelongMethod method = LifelongMethod::kReplay;  // the best of the study (docs/benchmarks.md)
  // EWC strength on importance normalised to mean 1 (NormalizeImportance).
  double lambda = 1.0;
  // Non-empty: λ is chosen per step from these by the validation rule
  // (docs/lifelong.md, "Choosing λ"); `lambda` is then unused.
  std::vector<double> lambda_grid;
  double gamma = 1.0;           // online-ewc: decay of older importance
  // Per learned intrinsic: replayed programs (and as many validation programs).
  // 1024 since 2026-11-29 (512 since 2026-11-27, 256 before): what a lineage
  // does not replay is most of what keeps it below joint; with half-fresh
  // steps (keep_weights) the ten-intrinsic study reaches ACC within 0.01 of
  // joint (docs/benchmarks.md, "Lifelong learning").
  int rehearsal_programs = 1024;
  uint64_t rehearsal_seed = 0;
  // Refit the feature normaliser at every step on what the step trains on
  // (the new intrinsic's fit programs and the replayed samples). Off: the
  // first step's normaliser is kept (the default, docs/lifelong.md).
  bool refit_normalizer = false;
  // A step after the first starts from this share of the lineage's weights,
  // the rest a fresh initialisation ("shrink and perturb", TrainOptions::
  // keep_weights; replay brings the earlier intrinsics back). 0.5 since
  // 2026-11-29, with 1024 rehearsal programs: alone each change gained within
  // seed noise, together they bring the ten-intrinsic study within 0.01 of
  // joint (docs/benchmarks.md). An online update never shrinks.
  double keep_weights = 0.5;
  NetworkConfig network;        // the first step's fresh network
  // A step trains as `registry train` does, with its defaults (60 epochs,
  // epoch averaging 0.5, validation from 4 tasks an intrinsic): one set of
  // training defaults. The step's own 30 epochs, no averaging and validation
  // from 2 tasks ended 0.03 ACC below joint on the three-step sequence
  // (docs/benchmarks.md). Mode and penalty are set by the step.
  TrainOptions training;
  std::function<void(const std::string&)> on_progress;
};

// One entry of the list: its hyper-parameter / job key, its CLI flag, its help.
struct StepOption {
  const char* key;
  const char* flag;
  const char* help;
};

// Calls visit(StepOption, field&) for every stored option of `o` (a
// LifelongStepOptions, const or not), in one fixed order. The field types are
// LifelongMethod, double, std::vector<double>, int, uint64_t and bool.
template <class Options, class Visit>
void VisitStepOptions(Options& o, Visit&& visit) {
  visit(StepOption{"method", "--method", "Forgetting control: replay | ewc+replay | ewc | online-ewc | finetune"},
        o.method);
  visit(StepOption{"lambda", "--lambda", "EWC strength, on importance normalised to mean 1 (EWC methods only)"},
        o.lambda);
  visit(StepOption{"lambda_grid", "--lambda-grid",
                   "Choose lambda per step from these (comma-separated) by the validation rule (EWC methods only)"},
        o.lambda_grid);
  visit(StepOption{"gamma", "--gamma", "online-ewc only: decay of older importance"}, o.gamma);
  visit(StepOption{"rehearsal_programs", "--rehearsal",
                   "Programs kept per learned intrinsic for replay (and as many for validation)"},
        o.rehearsal_programs);
  visit(StepOption{"rehearsal_seed", "--rehearsal-seed", "Seed of the rehearsal samples"}, o.rehearsal_seed);
  visit(StepOption{"refit_normalizer", "--refit-normalizer",
                   "Refit the feature normaliser at every step on the new and the replayed programs"},
        o.refit_normalizer);
  visit(StepOption{"epochs", "--epochs", "Maximum epochs per step"}, o.training.epochs);
  visit(StepOption{"learning_rate", "--lr", "Adam learning rate"}, o.training.learning_rate);
  visit(StepOption{"patience", "--patience", "Early-stopping patience"}, o.training.patience);
  visit(StepOption{"seed", "--seed", "Training seed"}, o.training.seed);
  visit(StepOption{"epoch_average_decay", "--epoch-average",
                   "Keep the epoch-end weights averaged with this decay per epoch (0: the epoch's own)"},
        o.training.epoch_average_decay);
  visit(StepOption{"balance_intrinsics", "--balance-intrinsics",
                   "Draw about as many groups per epoch from every intrinsic trained on (new and replayed)"},
        o.training.balance_intrinsics);
  visit(StepOption{"min_validation_tasks", "--min-val-tasks",
                   "Intrinsics with fewer validation tasks than this train on all their tasks"},
        o.training.min_validation_tasks);
  visit(StepOption{"keep_weights", "--keep-weights",
                   "Start a step from this share of the model's weights, the rest a fresh initialisation (1: all)"},
        o.keep_weights);
  visit(StepOption{"hidden", "--hidden", "Hidden width (first step only)"}, o.network.hidden);
  visit(StepOption{"heads", "--heads", "Attention heads; must divide --hidden (first step only)"}, o.network.heads);
}

// The options as hyper-parameters (bool as 0 / 1, the λ grid as "a,b,c").
ParamMap StepOptionsToParams(const LifelongStepOptions& options);
// Reads every option `params` holds into *options (the others keep their
// value); a mistyped one is an error naming its key.
Status StepOptionsFromParams(const ParamMap& params, LifelongStepOptions* options);

// The options as a JSON object (the λ grid as an array).
nlohmann::json StepOptionsToJson(const LifelongStepOptions& options);
// Reads every option key of the JSON object `j` into *options and adds it to
// *given; keys that are not options are left to the caller.
Status StepOptionsFromJson(const nlohmann::json& j, LifelongStepOptions* options, std::set<std::string>* given);

// Options that do nothing under options.method are refused rather than
// silently ignored: λ and its grid without an EWC penalty, γ outside
// online-ewc. `given` holds the keys the user set; the error names the flag
// (as_flags) or the key.
Status CheckGivenStepOptions(const LifelongStepOptions& options, const std::set<std::string>& given, bool as_flags);

}  // namespace ucmoh
