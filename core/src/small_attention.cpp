#include "small_attention.h"

#include <ATen/Parallel.h>

#include <algorithm>
#include <cmath>

namespace ucmoh {

namespace {

// One head of one program: `rows` tokens starting at `qkv`, row stride 3*hidden.
void AttendOneHead(const float* qkv, int64_t rows, int hidden, int head_dim, float scale, float* weights,
                   float* context) {
  const int64_t stride = 3 * static_cast<int64_t>(hidden);
  for (int64_t i = 0; i < rows; ++i) {
    const float* q = qkv + i * stride;
    float largest = -INFINITY;
    for (int64_t j = 0; j < rows; ++j) {
      const float* k = qkv + j * stride + hidden;
      float dot = 0.f;
      for (int d = 0; d < head_dim; ++d) dot += q[d] * k[d];
      weights[j] = dot * scale;
      largest = std::max(largest, weights[j]);
    }
    float total = 0.f;
    for (int64_t j = 0; j < rows; ++j) total += (weights[j] = std::exp(weights[j] - largest));
    float* out = context + i * hidden;
    std::fill(out, out + head_dim, 0.f);
    for (int64_t j = 0; j < rows; ++j) {
      const float w = weights[j] / total;
      const float* v = qkv + j * stride + 2 * hidden;
      for (int d = 0; d < head_dim; ++d) out[d] += w * v[d];
    }
  }
}

}  // namespace

void AttendWithinPrograms(const float* qkv, const std::vector<int64_t>& offsets, int hidden, int heads,
                          float* context) {
  const int head_dim = hidden / heads;
  const float scale = 1.f / std::sqrt(static_cast<float>(head_dim));
  const auto programs = static_cast<int64_t>(offsets.size()) - 1;
  at::parallel_for(0, programs, /*grain_size=*/16, [&](int64_t begin, int64_t end) {
    std::vector<float> weights;
    for (int64_t p = begin; p < end; ++p) {
      const int64_t first = offsets[p], rows = offsets[p + 1] - first;
      weights.resize(static_cast<size_t>(rows));
      for (int h = 0; h < heads; ++h)
        AttendOneHead(qkv + first * 3 * hidden + h * head_dim, rows, hidden, head_dim, scale, weights.data(),
                      context + first * hidden + h * head_dim);
    }
  });
}

}  // namespace ucmoh
