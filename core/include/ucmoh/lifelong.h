// The lifelong-learning sequence runner: learns intrinsics one after another
// with a method (EWC, online EWC, plain fine-tuning, joint training on
// everything seen so far, or one separate model per intrinsic) and fills the
// continual-learning matrices R[step][intrinsic] for PCA and top-1 on each
// intrinsic's held-out tasks (by_task split). See docs/lifelong.md.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "ucmoh/cost_model.h"
#include "ucmoh/fisher.h"
#include "ucmoh/program_set.h"
#include "ucmoh/training.h"

namespace ucmoh {

enum class LifelongMethod {
  kEwc,        // fine-tune + one EWC penalty per earlier intrinsic (separate snapshots)
  kOnlineEwc,  // fine-tune + one running snapshot, F ← γ·F_old + F_new, anchored at the latest θ
  kFinetune,   // plain sequential fine-tuning (the forgetting baseline)
  kJoint,      // from scratch on the union of all intrinsics seen so far (upper bound)
  kSeparate,   // one model per intrinsic, from scratch (no forgetting, no transfer)
};
Expected<LifelongMethod> ParseLifelongMethod(const std::string& name);  // ewc|online-ewc|finetune|joint|separate
const char* LifelongMethodName(LifelongMethod method);

struct LifelongOptions {
  std::vector<std::string> sequence;  // intrinsics, in learning order
  LifelongMethod method = LifelongMethod::kEwc;
  double lambda = 1.0;   // EWC strength λ (ewc, online-ewc)
  double gamma = 1.0;    // online-ewc decay of the running importance
  // Non-empty (ewc, online-ewc): at every step after the first, train one
  // candidate per λ from the same start and keep the one with the best mean
  // PCA over the validation tasks of every intrinsic seen so far (earlier
  // ones and the current one). The validation tasks are split off each
  // intrinsic's training tasks (by_task, validation_fraction) and not trained
  // on. `lambda` is then unused.
  std::vector<double> lambda_grid;
  double validation_fraction = 0.2;

  NetworkConfig network;
  TrainOptions training;       // mode and penalty are set by the runner per step
  FisherOptions fisher;
  double test_fraction = 0.2;  // by_task split of every intrinsic: held-out tasks R is measured on
  uint64_t split_seed = 0;
  // Train a model on each intrinsic alone (from scratch) to measure the
  // plasticity gap R_alone[j] − R[j][j]. The first intrinsic reuses step 0.
  bool plasticity_reference = true;
  std::function<void(const std::string&)> on_progress;  // one line per phase
};

struct LambdaTrial {
  double lambda = 0;
  double validation_pca = 0;  // mean over intrinsics seen so far
};

struct LifelongStep {
  std::string intrinsic;
  double seconds = 0;          // training (all λ candidates) + Fisher of this step
  double fisher_seconds = 0;
  TrainReport train;           // of the model kept
  double lambda = 0;           // λ used (ewc / online-ewc)
  std::vector<LambdaTrial> lambda_trials;  // when lambda_grid was given
  double penalty = 0;          // EWC penalty value at the end of the step
  // Mean LambdaRank loss (fisher.h RankingLoss) on each intrinsic's training
  // tasks after this step; NaN-free, one entry per intrinsic of the sequence.
  std::vector<double> train_loss;
  std::string snapshot;        // serialized snapshot taken after this step (ewc, online-ewc)
  std::string snapshot_sha256;
};

struct LifelongResult {
  std::vector<std::string> intrinsics;   // the sequence
  LifelongMethod method = LifelongMethod::kEwc;
  // R[i][j]: metric on intrinsic j's held-out tasks after step i, for every j
  // (columns j > i are zero-shot: intrinsics not learned yet).
  std::vector<std::vector<double>> pca, top1;
  double acc_pca = 0, bwt_pca = 0, acc_top1 = 0, bwt_top1 = 0;
  // Models trained on intrinsic j alone; gap[j] = alone[j] − R[j][j]
  // (positive: the sequential model learned j worse than a fresh one would).
  std::vector<double> alone_pca, alone_top1, plasticity_gap_pca, plasticity_gap_top1;
  double mean_plasticity_gap_pca = 0, mean_plasticity_gap_top1 = 0;
  std::vector<LifelongStep> steps;
  double seconds = 0;
  CostModel final_model{nullptr};  // the model after the last step (separate: the last one)
};

// `data` holds (at least) every intrinsic of the sequence, all programs: the
// runner splits each into train and held-out tasks itself.
Expected<LifelongResult> RunLifelong(const ProgramSet& data, const LifelongOptions& options);

}  // namespace ucmoh
