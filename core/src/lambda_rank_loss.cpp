#include "lambda_rank_loss.h"

#include <cmath>

namespace ucmoh {

torch::Tensor LambdaRankLoss(const torch::Tensor& scores, const torch::Tensor& labels,
                             double pairwise_weight) {
  const int64_t n = scores.size(0);
  if (n < 2) return scores.sum() * 0;
  // Positions come from the current prediction; they weight pairs, not gradients.
  auto order = std::get<1>(scores.detach().sort(/*dim=*/0, /*descending=*/true));
  auto s = scores.index_select(0, order);
  auto y = labels.index_select(0, order);
  auto y_ideal = std::get<0>(labels.sort(0, true));

  auto positions = torch::arange(1, n + 1, scores.options()).to(torch::kFloat);
  auto inv_discount = 1.0 / torch::log2(1.0 + positions);           // 1 / D(pos)
  auto max_dcg = ((torch::pow(2.0, y_ideal) - 1.0) * inv_discount).sum().clamp_min(1e-10);
  auto gains = (torch::pow(2.0, y) - 1.0) / max_dcg;

  auto weights = (inv_discount.unsqueeze(1) - inv_discount.unsqueeze(0)).abs() *
                 (gains.unsqueeze(1) - gains.unsqueeze(0)).abs();
  auto better = (y.unsqueeze(1) - y.unsqueeze(0)) > 0;               // pair (i, j): i truly faster
  if (!better.any().item<bool>()) return scores.sum() * 0;           // all latencies equal
  auto diffs = (s.unsqueeze(1) - s.unsqueeze(0)).clamp(-1e8, 1e8);
  auto pair_loss = -torch::log_sigmoid(diffs) / std::log(2.0);       // -log2 sigmoid
  auto lambda_rank = (weights.detach() * pair_loss).masked_select(better).sum();
  if (pairwise_weight == 0) return lambda_rank;
  return lambda_rank + pairwise_weight * pair_loss.masked_select(better).mean();
}

}  // namespace ucmoh
