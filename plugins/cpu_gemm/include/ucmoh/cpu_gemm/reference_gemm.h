// The scalar reference a kernel's output is checked against: the tests on
// x86 and ucmoh-measure's correctness sweep (under emulation for aarch64)
// share it, so "correct" means one thing on every target.
#pragma once

#include <cstdint>
#include <string>

#include "ucmoh/cpu_gemm/gemm_operands.h"

namespace ucmoh::cpu_gemm {

// Compares C (computed from zero) with C = A * B computed here: bit-exact
// for int8 (integer sums) and fp32 (an in-order fmaf chain, which is what a
// kernel computes when every C element is one FMA chain in k order, stored
// and reloaded as f32 between k blocks); for bf16, whose instruction rounds
// its pair sums its own way and flushes denormals, within the
// recursive-summation bound (K+1) * 2^-22 * sum|a*b|. Returns the number of
// mismatches; `first` (optional) describes the first one.
int64_t CheckAgainstReference(const GemmOperands& ops, std::string* first);

}  // namespace ucmoh::cpu_gemm
