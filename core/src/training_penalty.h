// An extra term added to the ranking loss during training (internal to core;
// EWC implements it). Evaluated on the network's current named parameters.
#pragma once

#include <torch/torch.h>

#include <string>

#include "ucmoh/training.h"

namespace ucmoh {

class EwcPenalty {
 public:
  virtual ~EwcPenalty() = default;
  virtual torch::Tensor Evaluate(const torch::OrderedDict<std::string, torch::Tensor>& params) const = 0;
};

}  // namespace ucmoh
