// One point of the blocked-GEMM schedule family (BLIS / GotoBLAS style), in
// the form a driver runs directly: every field is a number or a flag the
// driver's loops use as they are. docs/cpu-gemm.md describes the family.
//
//   for the three blocked loops in `loop_order` (blocks mc, nc, kc):
//     pack the A panel (mc x kc) and/or the B panel (kc x nc) when asked
//     for each nr-column tile, for each mr-row tile:        (the micro-kernel)
//       C tile -> mr * nr_vec accumulator registers
//       for each k-group step of the kc block (unrolled k_unroll times):
//         nr_vec vector loads of B, mr broadcasts of A, mr * nr_vec intrinsic calls
//       accumulators -> C tile
//
// `threads` threads split the `parallel` dimension into equal ranges of whole
// register tiles; each runs the nest above over its range with private packing
// buffers.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "ucmoh/params.h"
#include "ucmoh/status.h"

namespace ucmoh::cpu_gemm {

enum class GemmDim { kM, kN, kK };

// 'm', 'n' or 'k'.
char DimLetter(GemmDim dim);

struct GemmSchedule {
  // Register tile: mr rows of C by nr_vec vector registers of columns
  // (nr = nr_vec * lanes columns).
  int64_t mr = 1;
  int64_t nr_vec = 1;
  // Cache blocks, in elements: mc a multiple of mr, nc of nr, kc of k_group * k_unroll.
  int64_t mc = 1;
  int64_t nc = 1;
  int64_t kc = 1;
  // The three blocked loops, outermost first: {kN, kK, kM} is BLIS's jc, pc, ic.
  std::array<GemmDim, 3> loop_order{GemmDim::kN, GemmDim::kK, GemmDim::kM};
  bool pack_a = false;  // copy each mc x kc panel of A into a contiguous buffer
  bool pack_b = false;  // copy each kc x nc panel of B into a contiguous buffer
  int64_t k_unroll = 1; // k-group steps per unrolled body of the micro-kernel: 1, 2, 4, 8
  int64_t threads = 1;
  GemmDim parallel = GemmDim::kM;  // the dimension split across threads: kM or kN

  // The ParamMap spellings of loop_order ("nkm") and packing ("none", "a", "b", "ab").
  std::string LoopOrderString() const;
  std::string PackingString() const;
};

// The schedule keys, in the order docs/cpu-gemm.md lists them.
extern const std::array<const char*, 10> kScheduleKeys;

ParamMap ToParams(const GemmSchedule& schedule);

// Parses the keys of kScheduleKeys; a missing, mistyped, malformed or unknown
// key is an InvalidArgument error that names it. Range checks against an
// intrinsic are ValidateSchedule's job.
Expected<GemmSchedule> ScheduleFromParams(const ParamMap& params);

}  // namespace ucmoh::cpu_gemm
