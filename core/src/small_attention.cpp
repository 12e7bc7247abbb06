#include "small_attention.h"

#include <ATen/Parallel.h>

#include <algorithm>
#include <cmath>

namespace ucmoh {

namespace {

// q . k in four interleaved partial sums, added in a fixed order: the four
// lanes map onto one SIMD register (SSE2 is the baseline this builds for),
// where a single running sum would be a chain of dependent scalar adds. The
// order is fixed by the code, so every CPU gets the same bits.
template <int kDim>
float Dot(const float* q, const float* k, int n) {
  const int dim = kDim > 0 ? kDim : n;
  float lane[4] = {0.f, 0.f, 0.f, 0.f};
  int d = 0;
  for (; d + 4 <= dim; d += 4)
    for (int l = 0; l < 4; ++l) lane[l] += q[d + l] * k[d + l];
  float dot = (lane[0] + lane[1]) + (lane[2] + lane[3]);
  for (; d < dim; ++d) dot += q[d] * k[d];
  return dot;
}

// One head of one program: `rows` tokens starting at `qkv`, row stride
// 3*hidden. kDim > 0 fixes the head width at compile time, so the weighted
// sum of values stays in registers instead of a load and a store to `context`
// per value row (which perf showed as the kernel's hottest instructions);
// kDim = 0 is any width.
template <int kDim>
void AttendOneHead(const float* qkv, int64_t rows, int hidden, int head_dim, float scale, float* weights,
                   float* context) {
  constexpr int kMaxDim = kDim > 0 ? kDim : 1;
  const int dim = kDim > 0 ? kDim : head_dim;
  const int64_t stride = 3 * static_cast<int64_t>(hidden);
  for (int64_t i = 0; i < rows; ++i) {
    const float* q = qkv + i * stride;
    float largest = -INFINITY;
    for (int64_t j = 0; j < rows; ++j) {
      weights[j] = Dot<kDim>(q, qkv + j * stride + hidden, dim) * scale;
      largest = std::max(largest, weights[j]);
    }
    float total = 0.f;
    for (int64_t j = 0; j < rows; ++j) total += (weights[j] = std::exp(weights[j] - largest));
    float* out = context + i * hidden;
    if (kDim > 0) {
      float sum[kMaxDim] = {};
      for (int64_t j = 0; j < rows; ++j) {
        const float w = weights[j] / total;
        const float* v = qkv + j * stride + 2 * hidden;
        for (int d = 0; d < kMaxDim; ++d) sum[d] += w * v[d];
      }
      std::copy(sum, sum + kMaxDim, out);
    } else {
      std::fill(out, out + dim, 0.f);
      for (int64_t j = 0; j < rows; ++j) {
        const float w = weights[j] / total;
        const float* v = qkv + j * stride + 2 * hidden;
        for (int d = 0; d < dim; ++d) out[d] += w * v[d];
      }
    }
  }
}

using HeadKernel = void (*)(const float*, int64_t, int, int, float, float*, float*);

HeadKernel KernelFor(int head_dim) {
  switch (head_dim) {
    case 8: return AttendOneHead<8>;
    case 16: return AttendOneHead<16>;  // the default network: hidden 64, 4 heads
    case 32: return AttendOneHead<32>;
    default: return AttendOneHead<0>;
  }
}

}  // namespace

void AttendWithinPrograms(const float* qkv, const std::vector<int64_t>& offsets, int hidden, int heads,
                          float* context) {
  const int head_dim = hidden / heads;
  const float scale = 1.f / std::sqrt(static_cast<float>(head_dim));
  const auto programs = static_cast<int64_t>(offsets.size()) - 1;
  const HeadKernel attend = KernelFor(head_dim);
  at::parallel_for(0, programs, /*grain_size=*/16, [&](int64_t begin, int64_t end) {
    std::vector<float> weights;
    for (int64_t p = begin; p < end; ++p) {
      const int64_t first = offsets[p], rows = offsets[p + 1] - first;
      weights.resize(static_cast<size_t>(rows));
      for (int h = 0; h < heads; ++h)
        attend(qkv + first * 3 * hidden + h * head_dim, rows, hidden, head_dim, scale, weights.data(),
                      context + first * hidden + h * head_dim);
    }
  });
}

}  // namespace ucmoh
