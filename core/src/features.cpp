// Featurization: AST + target + intrinsic -> token matrix. The dimension
// meanings live in feature_schema.cpp; the indices in feature_dims.h.
#include <algorithm>
#include <cmath>
#include <string>

#include "feature_dims.h"
#include "loop_nest_features.h"
#include "placed_stage.h"
#include "ucmoh/features.h"

namespace ucmoh {

namespace {

void CollectStages(const AstNode& node, PlacedStage context, int& loops, std::vector<PlacedStage>& out) {
  if (!node.is_loop) {
    context.stage = &node.stage;
    out.push_back(context);
    return;
  }
  const PlacedStage inside = context.Inside(node.loop.kind, node.loop.extent, loops++);
  for (const auto& child : node.children) CollectStages(child, inside, loops, out);
}

struct ProgramTotals {
  double flops = 0;
  double global_bytes_loaded = 0;
  double arithmetic_intensity() const { return flops / std::max(1.0, global_bytes_loaded); }
};

ProgramTotals Totals(const std::vector<PlacedStage>& stages) {
  ProgramTotals t;
  for (const auto& p : stages) {
    const Stage& s = *p.stage;
    if (s.kind == StageKind::kCompute) t.flops += s.intrinsic_calls * s.flops_per_call * p.iterations;
    if (s.kind == StageKind::kLoad && s.src == MemScope::kGlobal) t.global_bytes_loaded += s.bytes * p.iterations;
  }
  return t;
}

void FillTarget(const HardwareParams& hw, float* row) {
  row[dims::kTokTarget] = 1;
  row[dims::kHwIsGpu] = hw.is_gpu ? 1.f : 0.f;
  row[dims::kHwIsCpu] = hw.is_gpu ? 0.f : 1.f;
  row[dims::kHwCores] = Log2p(hw.cores);
  row[dims::kHwVectorBytes] = Log2p(hw.vector_bytes);
  row[dims::kHwVectorRegisters] = Log2p(hw.vector_registers);
  row[dims::kHwCacheLine] = Log2p(hw.cache_line_bytes);
  row[dims::kHwL1] = Log2p(hw.l1_bytes);
  row[dims::kHwL2] = Log2p(hw.l2_bytes);
  row[dims::kHwL3] = Log2p(hw.l3_bytes);
  row[dims::kHwWarpSize] = Log2p(hw.warp_size);
  row[dims::kHwMaxThreadsPerBlock] = Log2p(hw.max_threads_per_block);
  row[dims::kHwSharedPerBlock] = Log2p(hw.shared_bytes_per_block);
  row[dims::kHwRegistersPerSm] = Log2p(hw.registers_per_sm);
  row[dims::kHwClockGhz] = static_cast<float>(hw.clock_ghz);
}

void FillIntrinsic(const IntrinsicInfo& in, const ProgramTotals& totals, float* row) {
  row[dims::kTokIntrinsic] = 1;
  row[dims::kInM] = Log2p(static_cast<double>(in.m));
  row[dims::kInN] = Log2p(static_cast<double>(in.n));
  row[dims::kInK] = Log2p(static_cast<double>(in.k));
  row[dims::kInOpsPerCall] = Log2p(in.ops_per_call);
  row[dims::kInInputBits] = static_cast<float>(TypeBits(in.input_type)) / 8.f;
  row[dims::kInAccumBits] = static_cast<float>(TypeBits(in.accum_type)) / 8.f;
  row[dims::kInIntegerInput] = TypeIsInteger(in.input_type) ? 1.f : 0.f;
  row[dims::kInFloatInput] = TypeIsInteger(in.input_type) ? 0.f : 1.f;
  row[dims::kTotalFlops] = Log2p(totals.flops);
  row[dims::kArithIntensity] = Log2p(totals.arithmetic_intensity());
}

void FillStage(const PlacedStage& p, const ProgramTotals& totals, float* row) {
  const Stage& s = *p.stage;
  row[dims::kTokLoad + static_cast<int>(s.kind)] = 1;
  for (int k = 0; k < kNumLoopKinds; ++k) row[dims::kLoopSerial + k] = Log2p(p.extent_by_kind[k]);
  row[dims::kLoopDepth] = Log2p(p.depth);
  row[dims::kLoopIterations] = Log2p(p.iterations);
  if (s.kind == StageKind::kCompute) {
    row[dims::kCallsPerExec] = Log2p(s.intrinsic_calls);
    row[dims::kTotalCalls] = Log2p(s.intrinsic_calls * p.iterations);
    row[dims::kTotalFlops] = Log2p(s.intrinsic_calls * s.flops_per_call * p.iterations);
    row[dims::kArithIntensity] = Log2p(totals.arithmetic_intensity());
  } else {
    row[dims::kMemBytes] = Log2p(s.bytes);
    row[dims::kMemUniqueBytes] = Log2p(s.unique_bytes);
    row[dims::kMemTotalBytes] = Log2p(s.bytes * p.iterations);
    row[dims::kMemStride] = Log2p(s.element_stride);
    row[dims::kMemVectorBytes] = Log2p(s.vector_bytes);
    row[dims::kMemReuse] = Log2p(s.reuse);
    row[dims::kSrcGlobal + static_cast<int>(s.src)] = 1;
    row[dims::kDstGlobal + static_cast<int>(s.dst)] = 1;
  }
  for (int t = 0; t < kTemplateDims; ++t) row[kGenericDims + t] = s.template_values[t];
}

Status CheckFinite(const TokenMatrix& m) {
  for (size_t i = 0; i < m.values.size(); ++i) {
    if (!std::isfinite(m.values[i])) {
      const auto& name = FeatureSchema()[i % kFeatureDim].name;
      return Status::InvalidArgument("feature '" + name + "' of token " +
                                     std::to_string(i / kFeatureDim) + " is not finite");
    }
  }
  return Status::Ok();
}

}  // namespace

PlacedStage PlacedStage::Inside(LoopKind loop_kind, int64_t loop_extent, int loop_id) const {
  PlacedStage inner = *this;
  const auto kind = static_cast<int>(loop_kind);
  const double extent = static_cast<double>(std::max<int64_t>(1, loop_extent));
  if (depth < kMaxLoops) inner.loops[depth] = PlacedLoop{loop_id, loop_kind, extent};
  inner.extent_by_kind[kind] = (extent_by_kind[kind] == 0 ? 1 : extent_by_kind[kind]) * extent;
  inner.depth += 1;
  inner.iterations *= extent;
  return inner;
}

Expected<TokenMatrix> FeaturizePlacedStages(const std::vector<PlacedStage>& stages, const HardwareParams& hardware,
                                            const IntrinsicInfo& intrinsic) {
  if (stages.empty()) return Status::InvalidArgument("program AST has no stages");
  const ProgramTotals totals = Totals(stages);
  TokenMatrix m;
  m.num_tokens = static_cast<int>(stages.size()) + 2;
  m.values.assign(static_cast<size_t>(m.num_tokens) * kFeatureDim, 0.f);
  FillTarget(hardware, m.values.data());
  FillIntrinsic(intrinsic, totals, m.values.data() + kFeatureDim);
  for (size_t i = 0; i < stages.size(); ++i)
    FillStage(stages[i], totals, m.values.data() + (i + 2) * kFeatureDim);
  FillLoopNestDims(stages, m.values.data() + 2 * kFeatureDim);
  UCMOH_RETURN_IF_ERROR(CheckFinite(m));
  return m;
}

Expected<TokenMatrix> Featurize(const ProgramAst& ast, const HardwareParams& hardware,
                                const IntrinsicInfo& intrinsic) {
  std::vector<PlacedStage> stages;
  int loops = 0;
  for (const auto& root : ast.roots) CollectStages(root, PlacedStage{}, loops, stages);
  return FeaturizePlacedStages(stages, hardware, intrinsic);
}

}  // namespace ucmoh
