// The unified token representation. Every program, on every target, becomes
// a matrix [tokens x kFeatureDim]: a target token, an intrinsic token, then one
// token per stage of its AST in program order. The first kGenericDims columns
// are computed by core from the AST and the plugin's descriptions; the last
// kTemplateDims are the plugin's own per-stage template values.
#pragma once

#include <string>
#include <vector>

#include "ucmoh/program_ast.h"
#include "ucmoh/status.h"
#include "ucmoh/target.h"

namespace ucmoh {

// Bump when the meaning or order of any dimension changes; models and
// registries record the version they were trained on.
// 2: the target token describes the record's hardware (nominal clock), not the
//    featurizing host's.
// 3: eight loop-nest dimensions (reuse loop, reuse distance, footprints, the
//    innermost loop and unrolled body), from the stages' loop_stride_bytes.
constexpr int kFeatureSchemaVersion = 3;
constexpr int kGenericDims = 64;
constexpr int kFeatureDim = kGenericDims + kTemplateDims;

struct FeatureDim {
  std::string name;
  std::string description;  // how it is computed
};

// The kFeatureDim dimensions in column order (template dims named template_0..).
const std::vector<FeatureDim>& FeatureSchema();

// Row-major [num_tokens x kFeatureDim] values, all finite.
struct TokenMatrix {
  int num_tokens = 0;
  std::vector<float> values;
  const float* row(int t) const { return values.data() + static_cast<size_t>(t) * kFeatureDim; }
};

// The target token comes from `hardware`: the machine the program ran on.
// Fails (InvalidArgument) on an AST without stages or with non-finite values.
Expected<TokenMatrix> Featurize(const ProgramAst& ast, const HardwareParams& hardware,
                                const IntrinsicInfo& intrinsic);

}  // namespace ucmoh
