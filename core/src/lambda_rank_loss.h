// LambdaRank loss over the programs of one task (internal to core).
#pragma once

#include <torch/torch.h>

namespace ucmoh {

// scores, labels: [n] for the n programs of one task; labels are normalized
// throughput (min_latency / latency). Pairs (i, j) with label_i > label_j are
// pushed apart with -log2 sigmoid(s_i - s_j), each weighted by the |ΔNDCG|
// that swapping them would cost (the "lambdaRank scheme" of allRank, as the
// TLP and TVM MLP cost models use). `pairwise_weight` adds the unweighted
// mean of the same pair losses (RankNet): LambdaRank's |ΔNDCG| weights are
// tiny below the top of the ranking, and the pairwise term keeps the whole
// order learning (it raised held-out PCA on the tensor-core data, see
// docs/journal/benchmarks-2026-11.md). Returns a scalar.
torch::Tensor LambdaRankLoss(const torch::Tensor& scores, const torch::Tensor& labels,
                             double pairwise_weight = 0.0);

}  // namespace ucmoh
