// What the GEMM schedule family needs to know about one intrinsic on one
// machine: the shape of a vector register and of one dot-product step, the
// register budget, and the caches and cores the blocking is sized against.
#pragma once

#include <cstdint>
#include <string>

#include "ucmoh/status.h"
#include "ucmoh/target.h"

namespace ucmoh::cpu_gemm {

struct IsaProfile {
  std::string intrinsic;         // "x86.avx512"
  std::string input_type;        // the intrinsic's: "f32", "bf16", "u8s8" (A u8, B s8), "s8"
  std::string accum_type;        // "f32", "s32"
  int64_t lanes = 1;             // accumulator elements per vector register (the intrinsic's n)
  int64_t k_group = 1;           // k depth of one call: 1 FMA, 2 bf16 pairs, 4 vnni / sdot
  int64_t input_bytes = 4;       // one element of A or B
  int64_t acc_bytes = 4;         // one accumulator element of C
  int64_t vector_registers = 16; // architectural registers the kernel may use (AVX2 16, AVX-512 and NEON 32)

  // The machine: blocks are sized against these; threads may not exceed cores.
  int64_t cores = 1;
  double l1_bytes = 0;
  double l2_bytes = 0;
  double l3_bytes = 0;           // 0 when there is no last-level cache beyond L2

  int64_t vector_bytes() const { return lanes * acc_bytes; }
  // Bytes of A or B one k-group step of one row/column occupies (broadcast width of A).
  int64_t group_bytes() const { return k_group * input_bytes; }
  // The cache the kc x nc panel of B is sized against: L3, or L2 without one.
  double last_level_bytes() const { return l3_bytes > 0 ? l3_bytes : l2_bytes; }
};

// Registers the micro-kernel needs besides its mr * nr_vec accumulators: the
// nr_vec vectors of B of one k-group step, live together, and one register
// that holds the broadcast A element of the row being multiplied.
int64_t OperandRegisters(int64_t nr_vec);

// Builds a profile from an intrinsic's description, the register count its
// instruction set may use, and the hardware (caches, cores). Fails when the
// intrinsic's types have no known width.
Expected<IsaProfile> MakeIsaProfile(const IntrinsicInfo& intrinsic, int64_t vector_registers,
                                    const HardwareParams& hardware);

}  // namespace ucmoh::cpu_gemm
