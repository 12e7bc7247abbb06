#include "implicit_gemm.h"

#include <map>

namespace ucmoh::tensorcore {

namespace {

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
double D(int64_t x) { return static_cast<double>(x); }

// CUTLASS's num_gemm_k_filter_r / _s: the taps start, start + stride, ... < extent.
int64_t TapsFrom(int64_t start, int64_t extent, int64_t stride) {
  return start < extent ? (extent - start + stride - 1) / stride : 0;
}

// Strided dgrad (ImplicitGemmConvolutionStridedDgrad): each of the
// stride_h*stride_w filter phases gets tile_m_per_filter M tiles covering
// the n*ceil(h/stride_h)*ceil(w/stride_w) dx rows of that phase, and walks
// only its own taps. Phases with the same tap count form one group.
std::vector<BlockGroup> StridedDgradGroups(const ConvProblem& p, const GemmTiling& t,
                                           int64_t tile_m_per_filter) {
  std::map<int64_t, int64_t> phases_by_taps;
  for (int64_t start_r = 0; start_r < p.stride_h; ++start_r)
    for (int64_t start_s = 0; start_s < p.stride_w; ++start_s)
      ++phases_by_taps[TapsFrom(start_r, p.r, p.stride_h) * TapsFrom(start_s, p.s, p.stride_w)];
  std::vector<BlockGroup> groups;
  // Most taps first: the phase holding tap (0, 0) comes first, as in the grid.
  for (auto it = phases_by_taps.rbegin(); it != phases_by_taps.rend(); ++it)
    groups.push_back({it->second * tile_m_per_filter * t.tiles_n,
                      it->first * t.k_tiles_per_filter_tap});
  return groups;
}

}  // namespace

ImplicitGemm MapToImplicitGemm(const ConvProblem& p) {
  switch (p.kind) {
    case ConvKind::kDgrad:
      return {p.n * p.h * p.w, p.c, p.k * p.r * p.s, p.r * p.s, p.k, "the filters k"};
    case ConvKind::kWgrad:
      return {p.k, p.c * p.r * p.s, p.n * p.p * p.q, 1, p.n * p.p * p.q, "the output pixels n*p*q"};
    case ConvKind::kFprop:
      break;
  }
  return {p.n * p.p * p.q, p.k, p.c * p.r * p.s, p.r * p.s, p.c, "the channels c"};
}

bool IsStridedDgrad(const ConvProblem& p) {
  return p.kind == ConvKind::kDgrad && (p.stride_h > 1 || p.stride_w > 1);
}

double GemmTiling::PaddedFlops(const KernelConfig& c) const {
  double flops = 0;
  for (const BlockGroup& group : groups)
    flops += 2.0 * D(group.blocks) * D(c.cta_m) * D(c.cta_n) * D(c.split_k_slices * group.k_tiles * c.cta_k);
  return flops;
}

GemmTiling ComputeTiling(const ConvProblem& p, const KernelConfig& c) {
  const ImplicitGemm gemm = MapToImplicitGemm(p);
  GemmTiling t;
  t.tiles_n = CeilDiv(gemm.n, c.cta_n);
  // CUTLASS's implicit_gemm_k_iterations: every filter tap walks the (split) channels.
  t.channels_per_slice = CeilDiv(gemm.reduction_per_tap, c.split_k_slices);
  t.k_tiles_per_filter_tap = CeilDiv(t.channels_per_slice, c.cta_k);
  t.k_tiles = gemm.filter_taps * t.k_tiles_per_filter_tap;
  if (!IsStridedDgrad(p)) {
    t.tiles_m = CeilDiv(gemm.m, c.cta_m);
    t.groups = {{t.tiles_m * t.tiles_n, t.k_tiles}};
    return t;
  }
  // CUTLASS's strided_dgrad_tile_m_per_filter.
  const int64_t rows_per_phase = p.n * CeilDiv(p.h, p.stride_h) * CeilDiv(p.w, p.stride_w);
  const int64_t tile_m_per_filter = CeilDiv(rows_per_phase, c.cta_m);
  t.tiles_m = tile_m_per_filter * p.stride_h * p.stride_w;
  t.groups = StridedDgradGroups(p, t, tile_m_per_filter);
  return t;
}

}  // namespace ucmoh::tensorcore
