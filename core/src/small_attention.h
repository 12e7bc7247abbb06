// Self-attention over the tokens of many short programs at once (internal to
// core). Why by hand: a program has 8-60 tokens, so LibTorch 1.13 runs the
// attention as B x heads separate tiny matmuls (one dispatch each) and spent
// two thirds of scoring there; PyTorch 2's fused scaled_dot_product_attention
// is what this replaces, and Debian ships 1.13 (docs/benchmarks.md, issue 16).
#pragma once

#include <cstdint>
#include <vector>

namespace ucmoh {

// qkv: [tokens, 3 * hidden] rows (queries | keys | values), the programs'
// tokens packed one program after another; program p owns rows
// [offsets[p], offsets[p + 1]). Writes context: [tokens, hidden], softmax(q k^T
// / sqrt(head_dim)) v per head, each token attending within its program only.
void AttendWithinPrograms(const float* qkv, const std::vector<int64_t>& offsets, int hidden, int heads,
                          float* context);

}  // namespace ucmoh
