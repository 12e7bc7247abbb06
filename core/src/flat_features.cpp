#include "ucmoh/flat_features.h"

#include <algorithm>

namespace ucmoh {

int FlatFeatureWidth(int max_tokens) { return std::max(0, max_tokens) * kFeatureDim + 1; }

void FlattenTokens(const TokenMatrix& tokens, int max_tokens, float* out) {
  const int width = FlatFeatureWidth(max_tokens);
  std::fill(out, out + width, 0.f);
  const int kept = std::clamp(tokens.num_tokens, 0, std::max(0, max_tokens));
  std::copy(tokens.values.begin(), tokens.values.begin() + static_cast<size_t>(kept) * kFeatureDim, out);
  out[width - 1] = static_cast<float>(tokens.num_tokens);
}

std::vector<float> FlattenProgramSet(const ProgramSet& set, int max_tokens) {
  const size_t width = static_cast<size_t>(FlatFeatureWidth(max_tokens));
  std::vector<float> flat(set.size() * width);
  for (size_t p = 0; p < set.size(); ++p) FlattenTokens(set.tokens[p], max_tokens, flat.data() + p * width);
  return flat;
}

}  // namespace ucmoh
