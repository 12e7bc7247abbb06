// The network configurations the pulled-model checks cover: every knob of
// NetworkConfig that `registry train` / `lifelong` set (--hidden, --heads,
// --fc-blocks, --seed) and encoder_layers, each moved away from its default
// at least once, with odd widths and head sizes (head_dim 1, 10, 3, 48).
#pragma once

#include <string>
#include <vector>

#include "ucmoh/cost_model.h"

namespace ucmoh::testing {

struct ExportCase {
  std::string name;       // used in test names and file names
  NetworkConfig network;
  // The one intrinsic the model is trained on (its normalizer fitted on),
  // so the others arrive off that scale as in a lifelong registry; empty:
  // trained on the sample of every intrinsic.
  std::string train_on;
};

std::vector<ExportCase> ExportCases();

}  // namespace ucmoh::testing
