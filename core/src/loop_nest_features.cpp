// The loop-nest dimensions (feature schema 3). The per-kind loop products of
// schema 2 say how much a stage runs, not in which order: two tilings of one
// MetaSchedule dense differ only in which loop sits where, and that decides
// what stays in registers and caches. With the bytes each loop moves an access
// (Stage::loop_stride_bytes) these are TVM's reuse / footprint quantities
// (PerStoreFeature's reuse distance and touched bytes), computed on the AST.
#include "loop_nest_features.h"

#include <algorithm>
#include <limits>

#include "feature_dims.h"

namespace ucmoh {

namespace {

int TrackedLoops(const PlacedStage& p) { return std::min(p.depth, PlacedStage::kMaxLoops); }

bool HasStrides(const PlacedStage& p) {
  return p.stage->kind != StageKind::kCompute && static_cast<int>(p.stage->loop_stride_bytes.size()) >= TrackedLoops(p) &&
         !p.stage->loop_stride_bytes.empty();
}

// Distinct bytes one access touches while its loops from depth `from` inward
// run: the tile times the loops that move it, at most the span they cover
// (overlapping windows, e.g. a convolution's input rows, touch less than the
// product). Without strides every loop is taken to move it.
double Footprint(const PlacedStage& p, int from) {
  const Stage& s = *p.stage;
  const bool known = HasStrides(p);
  double product = s.unique_bytes, span = known ? s.unique_bytes : std::numeric_limits<double>::infinity();
  for (int i = from; i < TrackedLoops(p); ++i) {
    const double stride = known ? s.loop_stride_bytes[i] : 1;
    if (stride == 0) continue;
    product *= p.loops[i].extent;
    span += stride * (p.loops[i].extent - 1);
  }
  return std::min(product, span);
}

// The innermost loop (extent > 1) that does not move the access, or -1.
int ReuseLoop(const PlacedStage& p) {
  for (int i = TrackedLoops(p) - 1; i >= 0; --i)
    if (p.loops[i].extent > 1 && p.stage->loop_stride_bytes[i] == 0) return i;
  return -1;
}

// What every load/store inside loop `depth` of `p` touches in one of its iterations.
double BytesInsideLoop(const std::vector<PlacedStage>& stages, const PlacedStage& p, int depth) {
  double bytes = 0;
  for (const PlacedStage& other : stages)
    if (other.stage->kind != StageKind::kCompute && TrackedLoops(other) > depth &&
        other.loops[depth].id == p.loops[depth].id)
      bytes += Footprint(other, depth + 1);
  return bytes;
}

void FillAccess(const std::vector<PlacedStage>& stages, const PlacedStage& p, float* row) {
  row[dims::kStridesKnown] = 1;
  const int reuse = ReuseLoop(p);
  if (reuse >= 0) {
    double iters = 1;
    for (int i = reuse + 1; i < TrackedLoops(p); ++i) iters *= p.loops[i].extent;
    row[dims::kReuseLoopExtent] = Log2p(p.loops[reuse].extent);
    row[dims::kReuseDistanceIters] = Log2p(iters);
    row[dims::kReuseDistanceBytes] = Log2p(BytesInsideLoop(stages, p, reuse));
  }
  int parallel = -1;
  for (int i = 0; i < TrackedLoops(p) && parallel < 0; ++i)
    if (p.loops[i].kind == LoopKind::kParallel) parallel = i;
  row[dims::kFootprintPerThread] = Log2p(Footprint(p, parallel + 1));
  for (int i = TrackedLoops(p) - 1; i >= 0; --i) {
    if (p.loops[i].extent > 1 && p.stage->loop_stride_bytes[i] > 0) {
      row[dims::kInnerStrideBytes] = Log2p(p.stage->loop_stride_bytes[i]);
      break;
    }
  }
}

void FillInnermost(const PlacedStage& p, float* row) {
  double unrolled = 1;
  bool in_unrolled_body = true;
  for (int i = TrackedLoops(p) - 1; i >= 0; --i) {
    const PlacedLoop& loop = p.loops[i];
    if (loop.extent <= 1) continue;
    if (row[dims::kInnerLoopExtent] == 0) row[dims::kInnerLoopExtent] = Log2p(loop.extent);
    in_unrolled_body = in_unrolled_body && loop.kind == LoopKind::kUnrolled;
    if (!in_unrolled_body) break;
    unrolled *= loop.extent;
  }
  row[dims::kUnrolledBody] = Log2p(unrolled);
}

}  // namespace

void FillLoopNestDims(const std::vector<PlacedStage>& stages, float* rows) {
  for (size_t i = 0; i < stages.size(); ++i) {
    float* row = rows + i * kFeatureDim;
    if (HasStrides(stages[i])) FillAccess(stages, stages[i], row);
    FillInnermost(stages[i], row);
  }
}

}  // namespace ucmoh
