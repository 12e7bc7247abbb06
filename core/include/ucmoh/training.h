// Training a CostModel with the LambdaRank loss over the programs of each
// task, with the transfer modes studied by Sasaki et al. (iWAPT 2022).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ucmoh/cost_model.h"
#include "ucmoh/program_set.h"

namespace ucmoh {

enum class TransferMode {
  kScratch,    // re-initialize everything
  kFinetune,   // start from the model, train all layers
  kExtract,    // start from the model, freeze encoder + attention (feature extractor)
};
Expected<TransferMode> ParseTransferMode(const std::string& name);  // scratch|finetune|extract
const char* TransferModeName(TransferMode mode);

struct EpochReport {
  int epoch = 0;
  double train_loss = 0;
  double val_pca = 0;        // 0 when there is no validation set
  double seconds = 0;        // wall time of this epoch
  double eta_seconds = 0;    // estimate to the last epoch
};

class EwcPenalty;   // training_penalty.h: an extra loss term (EWC), optional
class WorkerGroup;  // worker_group.h: data-parallel training, optional

struct TrainOptions {
  TransferMode mode = TransferMode::kScratch;
  int epochs = 60;
  double learning_rate = 1e-3;
  double weight_decay = 0;
  int programs_per_group = 16;   // programs of one task ranked together
  int groups_per_batch = 8;
  double grad_clip_norm = 1.0;
  double pairwise_weight = 2.0;  // RankNet term added to LambdaRank (lambda_rank_loss.h)
  // > 0: validate and keep the epoch-end parameters averaged with this decay
  // per epoch (an exponential moving average) instead of the last epoch's;
  // 0: the epoch's own. 0.5 ranked held-out tasks better on the tensor cores
  // (+0.012 PCA over 10 split seeds) and x86 (docs/benchmarks.md).
  double epoch_average_decay = 0.5;
  // Training on several intrinsics (both on by default: together +0.009 PCA
  // over averaging alone on the ten-intrinsic study, docs/benchmarks.md; no effect on one):
  // every intrinsic gives about as many groups per epoch as the mean one
  // (small intrinsics' tasks are grouped several times an epoch) ...
  bool balance_intrinsics = true;
  // ... and Train() stops early on the mean of each intrinsic's validation
  // PCA, so each intrinsic counts once whatever its number of programs.
  bool validate_per_intrinsic = true;
  double val_fraction = 0.1;     // of the training tasks, held out for early stopping
  // An intrinsic whose share of val_fraction is fewer tasks than this trains
  // on all of them and is not validated (SplitValidation). Early stopping on
  // 2 or 3 tasks' PCA ranked held-out tasks worse than training on them for
  // every epoch (docs/benchmarks.md, rule 2), so validation starts at 4
  // tasks: about 40 training tasks of an intrinsic at val_fraction 0.1.
  int min_validation_tasks = 4;
  int patience = 10;             // epochs without validation improvement before stopping
  uint64_t seed = 0;
  // finetune / extract: refit the feature normalizer on the training set
  // before training (scratch always fits it). Off: it stays as trained.
  bool refit_normalizer = false;
  // finetune: start from this share of the model's weights and the rest a
  // fresh initialisation (θ ← k·θ + (1 − k)·θ_init, "shrink and perturb",
  // Ash & Adams 2020): a warm-started network learns a new task worse than a
  // fresh one. 1: the model's weights as they are.
  double keep_weights = 1.0;
  const EwcPenalty* penalty = nullptr;
  // Set (world size > 1): data-parallel. Every rank passes the same programs
  // and options; each computes the loss of its share of every batch's
  // groups and the gradients are summed, so the model equals one process's
  // with the same batches (within float summation order).
  std::shared_ptr<WorkerGroup> workers;
  std::function<void(const EpochReport&)> on_epoch;  // progress reporting
};

struct TrainReport {
  int epochs_run = 0;
  int best_epoch = 0;
  double best_val_pca = 0;
  double final_train_loss = 0;
  double seconds = 0;
  int64_t trained_parameters = 0;  // parameters the mode let change
};

// Trains `model` in place on `train` (validation tasks are split off it by
// SplitValidation).
Expected<TrainReport> Train(CostModel& model, const ProgramSet& train, const TrainOptions& options);

// The mean over `validation` of each set's PCA, sets without programs skipped
// (0 when every set is empty): the score early stopping and the λ rule use.
Expected<double> ValidationScore(const CostModel& model, const std::vector<const ProgramSet*>& validation);

// The same with the validation sets given: every epoch is scored by the mean
// over the sets of each set's PCA (so each set, e.g. each intrinsic, counts
// once whatever its size) and the best epoch is kept. No sets: no early
// stopping, the last epoch is kept. `fit` is trained on as it is.
Expected<TrainReport> TrainWithValidation(CostModel& model, const ProgramSet& fit,
                                          const std::vector<const ProgramSet*>& validation,
                                          const TrainOptions& options);

// What Train holds out of `train` for early stopping: options.val_fraction of
// each intrinsic's tasks (by_task, seed options.seed + 1), but only from
// intrinsics that give at least options.min_validation_tasks; the others
// train on all their tasks. Early stopping on the PCA of so few tasks stopped
// at the wrong epoch often enough that training on them instead, without
// early stopping, ranked held-out tasks better (docs/benchmarks.md, "Three
// training changes, kept", rule 2).
// Returns {fit, validation}; validation is empty when no intrinsic qualifies.
std::pair<ProgramSet, ProgramSet> SplitValidation(const ProgramSet& train, const TrainOptions& options);

}  // namespace ucmoh
