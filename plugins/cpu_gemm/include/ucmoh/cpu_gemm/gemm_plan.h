// How a schedule cuts one problem into threads, blocks and register tiles.
// The lowering emits exactly these loops and the driver runs exactly them, so
// both read the same plan (docs/cpu-gemm.md, "Tails").
//
// Each dimension is counted in units: register-tile rows (mr) for m,
// register-tile columns (nr = nr_vec * lanes) for n, k-groups for k. The
// problem is padded up to whole units: edge tiles run the full micro-kernel
// on a padded view (rows of A past M clamped to the last row, columns past N
// and k past K zero-filled) and write only the valid part of C.
#pragma once

#include <cstdint>
#include <vector>

#include "ucmoh/cpu_gemm/gemm_problem.h"
#include "ucmoh/cpu_gemm/gemm_schedule.h"
#include "ucmoh/cpu_gemm/isa_profile.h"
#include "ucmoh/status.h"

namespace ucmoh::cpu_gemm {

// `count` consecutive blocks of `units` units each.
struct BlockRun {
  int64_t count = 0;
  int64_t units = 0;
  bool is_tail = false;  // the one short block at the end of a range
};

struct DimPlan {
  GemmDim dim = GemmDim::kM;
  int64_t unit_elements = 1;     // mr, nr or k_group
  int64_t total_units = 0;       // units of the whole padded problem
  int64_t units_per_thread = 0;  // the range one thread covers (total unless this dim is parallel)
  int64_t block_units = 0;       // the schedule's block, clipped to the range
  std::vector<BlockRun> runs;    // full blocks, then the tail block if the range has one

  int64_t padded_elements() const { return total_units * unit_elements; }
};

struct GemmPlan {
  GemmProblem problem;
  GemmSchedule schedule;
  IsaProfile profile;
  int64_t nr = 1;  // columns of a register tile: nr_vec * lanes
  DimPlan m, n, k;

  const DimPlan& dim(GemmDim d) const;
  // Position of a blocked loop in the nest, 0 = outermost.
  int LoopLevel(GemmDim d) const;
  // The blocked loop whose body packs each panel: the inner of the two loops
  // the panel depends on, so a panel is packed once per distinct block pair.
  int PackALevel() const;
  int PackBLevel() const;
};

// Register tiles along the schedule's parallel dimension (before threading).
int64_t ParallelTiles(const GemmProblem& problem, const GemmSchedule& schedule,
                      const IsaProfile& profile);

// Validates the schedule for the problem, then plans it. Thread t covers
// units [t * units_per_thread, (t + 1) * units_per_thread) of the parallel dim.
Expected<GemmPlan> MakeGemmPlan(const GemmProblem& problem, const GemmSchedule& schedule,
                                const IsaProfile& profile);

}  // namespace ucmoh::cpu_gemm
