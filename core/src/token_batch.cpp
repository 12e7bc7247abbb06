#include "token_batch.h"

#include <algorithm>
#include <cstring>

namespace ucmoh {

TokenBatch MakeTokenBatch(const ProgramSet& set, const std::vector<int32_t>& indices) {
  int max_tokens = 1;
  for (int32_t i : indices) max_tokens = std::max(max_tokens, set.tokens[i].num_tokens);
  const auto batch = static_cast<int64_t>(indices.size());
  TokenBatch out;
  out.tokens = torch::zeros({batch, max_tokens, kFeatureDim});
  out.valid = torch::zeros({batch, max_tokens});
  float* tokens = out.tokens.data_ptr<float>();
  float* valid = out.valid.data_ptr<float>();
  for (int64_t b = 0; b < batch; ++b) {
    const TokenMatrix& m = set.tokens[indices[b]];
    if (!m.values.empty())  // an empty vector's data() may be null, which memcpy must not get
      std::memcpy(tokens + b * max_tokens * kFeatureDim, m.values.data(), m.values.size() * sizeof(float));
    std::fill(valid + b * max_tokens, valid + b * max_tokens + m.num_tokens, 1.f);
  }
  return out;
}

}  // namespace ucmoh
