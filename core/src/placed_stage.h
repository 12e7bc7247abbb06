// A stage together with the loops around it: what featurization reads of a
// program (internal to core). Built from a ProgramAst (features.cpp) or, for
// plugins of the C ABI, straight from the plugin's C view of the AST
// (plugin_c_host.cpp), so that no host AST is built just to be featurized.
#pragma once

#include <array>
#include <vector>

#include "ucmoh/features.h"

namespace ucmoh {

// One enclosing loop: `id` numbers the program's loops in walk order, so two
// stages inside the same loop node see the same id at the same depth.
struct PlacedLoop {
  int id = 0;
  LoopKind kind = LoopKind::kSerial;
  double extent = 1;
};

struct PlacedStage {
  // The loops kept per stage; deeper ones count in depth / iterations only
  // (MetaSchedule's nests are under 20 deep).
  static constexpr int kMaxLoops = 32;

  const Stage* stage = nullptr;
  double extent_by_kind[kNumLoopKinds] = {};
  int depth = 0;
  double iterations = 1;
  std::array<PlacedLoop, kMaxLoops> loops{};  // the first min(depth, kMaxLoops), outermost first

  // The context of what lies inside one more loop (the `loop_id`-th of the walk).
  PlacedStage Inside(LoopKind kind, int64_t extent, int loop_id) const;
};

// Stages in program order -> the token matrix (features.cpp).
Expected<TokenMatrix> FeaturizePlacedStages(const std::vector<PlacedStage>& stages, const HardwareParams& hardware,
                                            const IntrinsicInfo& intrinsic);

}  // namespace ucmoh
