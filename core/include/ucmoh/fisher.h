// Fisher importance for EWC: after a model has learned an intrinsic, the
// diagonal (empirical) Fisher information of the LambdaRank loss over that
// intrinsic's training data, and the anchor parameters θ*.
//
// Exactly how (docs/lifelong.md, "Fisher importance"):
//   * Groups: every task of `set` with at least two programs; its programs in
//     set order, shuffled with std::mt19937_64(seed) when the task has more
//     than programs_per_group programs and cut into ceil(n / programs_per_group)
//     chunks of balanced size (the grouping training uses). G groups in all.
//   * Labels: normalized throughput within the whole task, min_latency / latency.
//   * Per group g: L_g = LambdaRankLoss(scores of the group, labels) — the
//     ΔNDCG-weighted sum over ordered pairs, as training computes it — and its
//     gradient ∇θ L_g with the network in eval mode. (With pairwise_weight
//     w > 0, L_g also adds w × the unweighted mean pair loss, as training does.)
//   * F_i = (1 / G) Σ_g (∂L_g / ∂θ_i)², accumulated in double, stored as float.
//   * θ*_i = the model's parameters as they are when this is called.
// The resulting penalty λ Σ_i F_i (θ_i − θ*_i)² is on the scale of one
// group's loss, the quantity each training step averages.
#pragma once

#include <cstdint>

#include "ucmoh/cost_model.h"
#include "ucmoh/program_set.h"
#include "ucmoh/snapshot.h"

namespace ucmoh {

struct FisherOptions {
  int programs_per_group = 64;  // as TrainOptions::programs_per_group
  uint64_t seed = 0;            // shuffling of tasks larger than one group
  int max_groups = 0;           // > 0: only the first max_groups groups (in task order)
  // Weight of the RankNet term training may add to LambdaRank
  // (TrainOptions::pairwise_weight). 0: the pure LambdaRank loss; the
  // lifelong runner passes the training value, so the Fisher is that of the
  // loss actually trained.
  double pairwise_weight = 0.0;
  // Multiplies every group's loss before differentiation (F scales by its
  // square). 1 in practice; the tests use it to show that NormalizeImportance
  // makes the penalty independent of the loss's scale.
  double loss_scale = 1.0;
};

// The snapshot (method "fisher") of a trained model over `set`; covers the
// intrinsics of `set`. Fails when the model is untrained or `set` has no task
// with two programs.
Expected<Snapshot> ComputeFisher(const CostModel& model, const ProgramSet& set, const FisherOptions& options = {});

// Mean LambdaRank loss over the same groups (what EWC protects; used by the
// lifelong runner and its tests to measure forgetting in loss terms).
Expected<double> RankingLoss(const CostModel& model, const ProgramSet& set, const FisherOptions& options = {});

}  // namespace ucmoh
