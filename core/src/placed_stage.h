// A stage together with the loops around it: what featurization reads of a
// program (internal to core). Built from a ProgramAst (features.cpp) or, for
// plugins of the C ABI, straight from the plugin's C view of the AST
// (plugin_c_host.cpp), so that no host AST is built just to be featurized.
#pragma once

#include <vector>

#include "ucmoh/features.h"

namespace ucmoh {

struct PlacedStage {
  const Stage* stage = nullptr;
  double extent_by_kind[kNumLoopKinds] = {};
  int depth = 0;
  double iterations = 1;

  // The context of what lies inside one more loop.
  PlacedStage Inside(LoopKind kind, int64_t extent) const;
};

// Stages in program order -> the token matrix (features.cpp).
Expected<TokenMatrix> FeaturizePlacedStages(const std::vector<PlacedStage>& stages, const HardwareParams& hardware,
                                            const IntrinsicInfo& intrinsic);

}  // namespace ucmoh
