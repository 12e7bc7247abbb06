// Programs -> padded tensors the network consumes (internal to core).
#pragma once

#include <torch/torch.h>

#include <vector>

#include "ucmoh/program_set.h"

namespace ucmoh {

struct TokenBatch {
  torch::Tensor tokens;  // [B, T, D] float, zero-padded
  torch::Tensor valid;   // [B, T] float, 1 for real tokens
};

// The programs at `indices`, padded to the longest of them.
TokenBatch MakeTokenBatch(const ProgramSet& set, const std::vector<int32_t>& indices);

}  // namespace ucmoh
