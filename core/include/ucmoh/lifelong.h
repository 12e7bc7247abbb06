// The lifelong-learning sequence runner: learns intrinsics one after another
// by running the lifelong step (lifelong_step.h) in a loop, or trains the
// study baselines (joint: everything seen so far from scratch; separate: one
// model per intrinsic), and fills the continual-learning matrices
// R[step][intrinsic] for PCA and top-1 on each intrinsic's held-out tasks.
// See docs/lifelong.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ucmoh/cost_model.h"
#include "ucmoh/lifelong_step.h"
#include "ucmoh/program_set.h"
#include "ucmoh/training.h"

namespace ucmoh {

struct LifelongOptions {
  std::vector<std::string> sequence;  // intrinsics, in learning order
  // Method, λ, rehearsal, training and network: the same struct, and so the
  // same defaults, as `registry add-intrinsic`.
  LifelongStepOptions step;
  double test_fraction = 0.2;  // pinned by_task split of every intrinsic: the tasks R is measured on
  uint64_t split_seed = 0;
  // Train a model on each intrinsic alone (from scratch) to measure the
  // plasticity gap R_alone[j] − R[j][j]. The first intrinsic reuses step 0.
  bool plasticity_reference = true;
};

struct LifelongStepReport {
  std::string intrinsic;
  double seconds = 0;  // the whole step: training, Fisher, evaluation
  double train_seconds = 0, fisher_seconds = 0, evaluate_seconds = 0;
  TrainReport train;   // of the model kept
  double lambda = 0;   // λ used (EWC methods after the first step)
  std::vector<LambdaTrial> lambda_trials;  // with a λ grid
  double penalty = 0;  // EWC penalty at the end of the step
  int64_t fit_programs = 0, replayed_programs = 0;
  // Mean LambdaRank loss (fisher.h RankingLoss) on each intrinsic's training
  // tasks after this step; one entry per intrinsic of the sequence.
  std::vector<double> train_loss;
  std::string snapshot;  // the step's serialized Fisher snapshot (EWC methods)
  std::string snapshot_sha256;
};

struct LifelongResult {
  std::vector<std::string> intrinsics;  // the sequence
  LifelongMethod method = LifelongMethod::kReplay;
  // R[i][j]: metric on intrinsic j's held-out tasks after step i, for every j
  // (columns j > i are zero-shot: intrinsics not learned yet).
  std::vector<std::vector<double>> pca, top1;
  double acc_pca = 0, bwt_pca = 0, acc_top1 = 0, bwt_top1 = 0;
  // A freshly initialised network's PCA on each intrinsic's held-out tasks,
  // and forward transfer FWT = mean_{j>0} (R[j−1][j] − fresh[j]).
  std::vector<double> fresh_pca;
  double fwt_pca = 0;
  // Models trained on intrinsic j alone; gap[j] = alone[j] − R[j][j]
  // (positive: the sequential model learned j worse than a fresh one would).
  std::vector<double> alone_pca, alone_top1, plasticity_gap_pca, plasticity_gap_top1;
  double mean_plasticity_gap_pca = 0, mean_plasticity_gap_top1 = 0;
  std::vector<LifelongStepReport> steps;
  double seconds = 0;
  CostModel final_model{nullptr};  // the model after the last step (separate: the last one)
};

// `data` holds (at least) every intrinsic of the sequence, all programs: the
// runner splits each into training and held-out tasks itself.
Expected<LifelongResult> RunLifelong(const ProgramSet& data, const LifelongOptions& options);

}  // namespace ucmoh
