#include "schedule_space.h"

#include <algorithm>
#include <random>
#include <utility>

#include "kernel_resources.h"
#include "program.h"

namespace ucmoh::tensorcore {

namespace {

constexpr int64_t kCtaSizes[] = {64, 128, 256};
constexpr int64_t kWarpCounts[] = {1, 2, 4};
constexpr int64_t kWarpTileSizes[] = {32, 64};
constexpr int64_t kCtaKBytes[] = {64, 128};
constexpr int64_t kSplitKSlices[] = {1, 2, 4};

std::vector<int64_t> StageChoices(const TensorCoreIntrinsic& intrinsic) {
  if (!intrinsic.UsesCpAsync()) return {2};  // Turing kernels double-buffer only
  return {2, 3, 4, 5, 6};
}

std::vector<int64_t> AlignmentChoices(const TensorCoreIntrinsic& intrinsic) {
  std::vector<int64_t> alignments;
  for (int64_t a = 1; a * intrinsic.InputBytes() <= 16; a *= 2) alignments.push_back(a);
  return alignments;
}

bool IsWarpTileSize(int64_t x) {
  for (int64_t size : kWarpTileSizes)
    if (x == size) return true;
  return false;
}

// Warp arrangements of 4 or 8 warps whose warp tile is 32 or 64 on a side and
// at least 64 bytes deep.
std::vector<KernelConfig> TileShapes(const TensorCoreIntrinsic& intrinsic) {
  std::vector<KernelConfig> shapes;
  for (int64_t cta_m : kCtaSizes)
    for (int64_t cta_n : kCtaSizes)
      for (int64_t k_bytes : kCtaKBytes)
        for (int64_t warps_m : kWarpCounts)
          for (int64_t warps_n : kWarpCounts)
            for (int64_t warps_k : {1, 2}) {
              KernelConfig c;
              c.cta_m = cta_m;
              c.cta_n = cta_n;
              c.cta_k = k_bytes / intrinsic.InputBytes();
              c.warps_m = warps_m;
              c.warps_n = warps_n;
              c.warps_k = warps_k;
              const int64_t warps = c.warps();
              if (warps != 4 && warps != 8) continue;
              if (!IsWarpTileSize(c.warp_m()) || !IsWarpTileSize(c.warp_n())) continue;
              if (c.warp_k() * intrinsic.InputBytes() < 64) continue;
              shapes.push_back(c);
            }
  return shapes;
}

}  // namespace

std::vector<KernelConfig> EnumerateSchedules(const ConvProblem& problem, const TensorCoreIntrinsic& intrinsic,
                                             const GpuArchitecture& arch) {
  std::vector<KernelConfig> valid;
  for (const KernelConfig& shape : TileShapes(intrinsic))
    for (int64_t stages : StageChoices(intrinsic))
      for (int64_t alignment : AlignmentChoices(intrinsic))
        for (bool optimized : {true, false})
          for (int64_t split : kSplitKSlices) {
            KernelConfig c = shape;
            c.stages = stages;
            c.alignment = alignment;
            c.optimized_iterator = optimized;
            c.split_k_slices = split;
            if (ValidateProgram(problem, intrinsic, c, EstimateResources(c, intrinsic, arch), arch).ok())
              valid.push_back(c);
          }
  return valid;
}

std::vector<KernelConfig> SampleSchedules(const ConvProblem& problem, const TensorCoreIntrinsic& intrinsic,
                                          int64_t count, uint64_t seed, const GpuArchitecture& arch) {
  std::vector<KernelConfig> pool = EnumerateSchedules(problem, intrinsic, arch);
  const size_t wanted = std::min(pool.size(), static_cast<size_t>(std::max<int64_t>(0, count)));
  std::mt19937_64 rng(seed);
  for (size_t i = 0; i < wanted; ++i) {
    // Modulo bias is below 1e-15 for pools this small.
    const size_t j = i + static_cast<size_t>(rng() % (pool.size() - i));
    std::swap(pool[i], pool[j]);
  }
  pool.resize(wanted);
  return pool;
}

}  // namespace ucmoh::tensorcore
