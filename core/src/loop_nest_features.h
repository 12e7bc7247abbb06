// Schema 3's loop-nest dimensions of every stage token (loop_nest_features.cpp):
// where a load or store reuses its data, how much the program touches in
// between, and each stage's innermost loop and unrolled body. Internal to core.
#pragma once

#include <vector>

#include "placed_stage.h"

namespace ucmoh {

// Fills dims::kReuseLoopExtent .. kUnrolledBody of each stage's row; `rows`
// points at the first stage token's row, the others follow it.
void FillLoopNestDims(const std::vector<PlacedStage>& stages, float* rows);

}  // namespace ucmoh
