// Elastic weight consolidation (Kirkpatrick et al., PNAS 2017) for the
// lifelong registry: the training loss becomes
//     L'(θ) = L(θ) + λ Σ_k Σ_i b^k_i (θ_i − θ*^k_i)²
// over a list of snapshots k (fisher.h). Two ways to use it:
//   * separate ("ewc"): one snapshot per earlier intrinsic, each anchored at
//     the parameters after that intrinsic was learned;
//   * online ("online-ewc", Schwarz et al. 2018): one running snapshot,
//     MergeOnline(old, fresh, γ) = (importance γ·F_old + F_new, anchor θ* of
//     `fresh`, i.e. the latest parameters).
// No LibTorch here: the penalty object is opaque (training_penalty.h) and is
// handed to Train() through TrainOptions::penalty.
#pragma once

#include <memory>
#include <vector>

#include "ucmoh/cost_model.h"
#include "ucmoh/snapshot.h"
#include "ucmoh/status.h"

namespace ucmoh {

class EwcPenalty;  // training_penalty.h

// λ Σ_k Σ_i b^k_i (θ_i − θ*^k_i)². Parameters of the network that a snapshot
// does not name are not penalized; check the layout first with
// CheckSnapshotFits. An empty list or λ = 0 gives a penalty that is always 0.
std::shared_ptr<const EwcPenalty> MakeEwcPenalty(const std::vector<Snapshot>& snapshots, double lambda);

// The penalty's value at the model's current parameters (for reports and tests).
double EwcPenaltyValue(const EwcPenalty& penalty, const CostModel& model);

// Every tensor of the snapshot names a parameter of the model with the same shape.
Status CheckSnapshotFits(const Snapshot& snapshot, const CostModel& model);

// The online form: importance γ·old + fresh, anchor = fresh's, intrinsics =
// old's followed by fresh's new ones, method "online", metadata records γ
// and how many Fisher snapshots were merged. Fails on different layouts.
Expected<Snapshot> MergeOnline(const Snapshot& old, const Snapshot& fresh, double gamma);

}  // namespace ucmoh
