// One lifelong step: the current model, its forgetting-control state and one
// intrinsic's training tasks in; the new model, the new state and its
// evaluation row out. `registry lifelong` (lifelong.h) runs it in a loop and
// `registry add-intrinsic` is load -> step -> commit, so both share this one
// implementation and these one set of defaults. docs/lifelong.md.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "ucmoh/cost_model.h"
#include "ucmoh/fisher.h"
#include "ucmoh/metrics.h"
#include "ucmoh/program_set.h"
#include "ucmoh/rehearsal.h"
#include "ucmoh/snapshot.h"
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

// Training defaults of every lifelong step (both entry points).
TrainOptions LifelongTrainingDefaults();

// The Fisher (and RankingLoss) grouping and loss of what `training` trains:
// its programs_per_group and pairwise_weight. The one place they are derived,
// so the importance and the reported losses always match the trained loss.
FisherOptions FisherOptionsFor(const TrainOptions& training);

struct LifelongStepOptions {
  LifelongMethod method = LifelongMethod::kReplay;  // the best of the study (docs/benchmarks.md)
  // EWC strength on importance normalised to mean 1 (NormalizeImportance).
  double lambda = 1.0;
  // Non-empty: λ is chosen per step from these by the validation rule
  // (docs/lifelong.md, "Choosing λ"); `lambda` is then unused.
  std::vector<double> lambda_grid;
  double gamma = 1.0;           // online-ewc: decay of older importance
  int rehearsal_programs = 256;  // per learned intrinsic: replayed programs (and as many validation programs)
  uint64_t rehearsal_seed = 0;
  // Refit the feature normaliser at every step on what the step trains on
  // (the new intrinsic's fit programs and the replayed samples). Off: the
  // first step's normaliser is kept (the default, docs/lifelong.md).
  bool refit_normalizer = false;
  NetworkConfig network;        // the first step's fresh network
  TrainOptions training = LifelongTrainingDefaults();  // mode and penalty are set by the step
  std::function<void(const std::string&)> on_progress;
};

// What keeps a model from forgetting, carried from step to step (and stored
// with every registry version): per learned intrinsic, in learning order.
struct LifelongState {
  std::vector<Snapshot> snapshots;         // normalised Fisher snapshots (EWC methods)
  std::vector<RehearsalSample> rehearsal;  // drawn for every method
};

struct HeldOutTasks {
  std::string intrinsic;
  const ProgramSet* tasks = nullptr;
};

struct LifelongStepInput {
  const CostModel* model = nullptr;      // nullptr: the first step, from a fresh network
  LifelongState state;                   // empty on the first step
  std::string intrinsic;                 // learned (or relearned) by this step
  const ProgramSet* train = nullptr;     // its training tasks, in any order
  std::vector<HeldOutTasks> evaluate;    // the row: the new model on each of these
};

struct LambdaTrial {
  double lambda = 0;
  double validation_pca = 0;      // mean over every seen intrinsic's validation programs
  double new_validation_pca = 0;  // the step's intrinsic alone
  bool eligible = false;          // passed the rule's guards
};

struct EvaluationCell {
  std::string intrinsic;
  RankingMetrics metrics;
};

struct LifelongStepResult {
  CostModel model{nullptr};
  LifelongState state;
  std::vector<EvaluationCell> row;  // one per LifelongStepInput::evaluate, in that order
  TrainReport train;                // of the kept candidate
  double lambda = 0;                // used (EWC methods after the first step)
  std::vector<LambdaTrial> lambda_trials;
  double penalty = 0;               // EWC penalty at the end of training
  int64_t fit_programs = 0, replayed_programs = 0;
  double train_seconds = 0, fisher_seconds = 0, evaluate_seconds = 0;
};

// The forgetting control a step (and an online update, online_update.h)
// trains under, from one implementation: the snapshots the EWC penalty sums
// (each one, or their online merge; none for methods without EWC) ...
Expected<std::vector<Snapshot>> PenaltySnapshots(const LifelongState& state, const LifelongStepOptions& options);
// ... and `fit` with every learned intrinsic's rehearsal sample appended
// when the method replays; *replayed counts the appended programs.
ProgramSet WithReplay(const ProgramSet& fit, const LifelongState& state, const LifelongStepOptions& options,
                      int64_t* replayed = nullptr);

// The model on each held-out set (programs in canonical order, so the row
// does not depend on how the records were read): a step's evaluation row.
Expected<std::vector<EvaluationCell>> EvaluateHeldOut(const CostModel& model, const std::vector<HeldOutTasks>& held_out);

Expected<LifelongStepResult> RunLifelongStep(const LifelongStepInput& input, const LifelongStepOptions& options);

}  // namespace ucmoh
