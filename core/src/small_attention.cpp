#include "small_attention.h"

#include <ATen/Parallel.h>

#include <algorithm>
#include <cmath>

namespace ucmoh {

namespace {

// Keys per block of logits a query computes at once (two SSE registers).
constexpr int64_t kKeyBlock = 8;

int64_t AttentionBufferRows(int64_t rows) { return (rows + kKeyBlock - 1) / kKeyBlock * kKeyBlock; }

// One head of one program: `rows` tokens starting at `qkv`, row stride
// 3*hidden. The keys are first copied transposed and pre-scaled ([dim] rows
// of AttentionBufferRows(rows) keys, zeros past the last key), so a query's
// logits against a block of keys are a loop of fixed length that the
// compiler vectorizes (a SIMD lane per key), where a dot product per key
// ended in a horizontal sum each: 16 % fewer instructions in attention
// (callgrind, docs/journal/benchmarks-2026-11.md). Each lane sums over the head's dimensions
// in the same order whatever the SIMD width, so every CPU gets the same bits.
// kDim > 0 fixes the head width at compile time, so the weighted sum of
// values stays in registers; kDim = 0 is any width. `buffer` holds
// (dim + 1) * AttentionBufferRows(rows) floats.
template <int kDim>
void AttendOneHead(const float* qkv, int64_t rows, int hidden, int head_dim, float scale, float* buffer,
                   float* context) {
  constexpr int kMaxDim = kDim > 0 ? kDim : 1;
  const int dim = kDim > 0 ? kDim : head_dim;
  const int64_t stride = 3 * static_cast<int64_t>(hidden);
  const int64_t padded = AttentionBufferRows(rows);
  float* keys = buffer;                    // [dim][padded], scaled; padding keys are zeros
  float* weights = buffer + dim * padded;  // [padded]
  std::fill(keys, keys + dim * padded, 0.f);
  for (int64_t j = 0; j < rows; ++j)
    for (int d = 0; d < dim; ++d) keys[d * padded + j] = qkv[j * stride + hidden + d] * scale;
  for (int64_t i = 0; i < rows; ++i) {
    const float* q = qkv + i * stride;
    for (int64_t block = 0; block < padded; block += kKeyBlock) {
      float logit[kKeyBlock] = {};  // in registers across the head's dimensions
      for (int d = 0; d < dim; ++d) {
        const float qd = q[d];
        const float* k = keys + d * padded + block;
        for (int l = 0; l < kKeyBlock; ++l) logit[l] += qd * k[l];
      }
      std::copy(logit, logit + kKeyBlock, weights + block);
    }
    const float largest = *std::max_element(weights, weights + rows);
    float total = 0.f;
    for (int64_t j = 0; j < rows; ++j) total += (weights[j] = std::exp(weights[j] - largest));
    const float inverse = 1.f / total;
    float* out = context + i * hidden;
    if (kDim > 0) {
      float sum[kMaxDim] = {};
      for (int64_t j = 0; j < rows; ++j) {
        const float w = weights[j] * inverse;
        const float* v = qkv + j * stride + 2 * hidden;
        for (int d = 0; d < kMaxDim; ++d) sum[d] += w * v[d];
      }
      std::copy(sum, sum + kMaxDim, out);
    } else {
      std::fill(out, out + dim, 0.f);
      for (int64_t j = 0; j < rows; ++j) {
        const float w = weights[j] * inverse;
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
    case 12: return AttendOneHead<12>;
    case 16: return AttendOneHead<16>;
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
    std::vector<float> buffer;
    for (int64_t p = begin; p < end; ++p) {
      const int64_t first = offsets[p], rows = offsets[p + 1] - first;
      buffer.resize(static_cast<size_t>(AttentionBufferRows(rows)) * (head_dim + 1));
      for (int h = 0; h < heads; ++h)
        attend(qkv + first * 3 * hidden + h * head_dim, rows, hidden, head_dim, scale, buffer.data(),
                      context + first * hidden + h * head_dim);
    }
  });
}

}  // namespace ucmoh
