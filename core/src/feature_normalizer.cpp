#include "feature_normalizer.h"

namespace ucmoh {

void FeatureNormalizer::Fit(const ProgramSet& set) {
  std::vector<double> sum(kFeatureDim, 0.0), sum_sq(kFeatureDim, 0.0);
  double count = 0;
  for (const auto& m : set.tokens) {
    for (int t = 0; t < m.num_tokens; ++t) {
      const float* row = m.row(t);
      for (int d = 0; d < kFeatureDim; ++d) {
        sum[d] += row[d];
        sum_sq[d] += static_cast<double>(row[d]) * row[d];
      }
    }
    count += m.num_tokens;
  }
  mean = torch::zeros({kFeatureDim});
  inv_std = torch::ones({kFeatureDim});
  if (count == 0) return;
  for (int d = 0; d < kFeatureDim; ++d) {
    const double mu = sum[d] / count;
    const double var = std::max(0.0, sum_sq[d] / count - mu * mu);
    mean[d] = mu;
    // Never amplify: a near-constant dimension stays on its log scale, so a
    // later intrinsic that does vary it is not blown up by a tiny std.
    inv_std[d] = 1.0 / std::max(1.0, std::sqrt(var));
  }
}

torch::Tensor FeatureNormalizer::Apply(const torch::Tensor& tokens, const torch::Tensor& valid) const {
  return (tokens - mean) * inv_std * valid.unsqueeze(-1);
}

}  // namespace ucmoh
