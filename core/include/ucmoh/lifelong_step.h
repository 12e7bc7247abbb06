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
#include "ucmoh/lifelong_step_options.h"
#include "ucmoh/metrics.h"
#include "ucmoh/program_set.h"
#include "ucmoh/rehearsal.h"
#include "ucmoh/snapshot.h"
#include "ucmoh/training.h"

namespace ucmoh {

// The Fisher (and RankingLoss) grouping and loss of what `training` trains:
// its programs_per_group and pairwise_weight. The one place they are derived,
// so the importance and the reported losses always match the trained loss.
FisherOptions FisherOptionsFor(const TrainOptions& training);

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
  // Scored on a fifth of every training task's programs, held back from the
  // candidates, because the new intrinsic had no validation tasks.
  bool held_back_programs = false;
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
  // The λ the penalty was applied with (the configured one, or the grid's
  // choice); lambda_applied is false where no penalty was (no EWC method,
  // or a first step with nothing to remember yet).
  double lambda = 0;
  bool lambda_applied = false;
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
