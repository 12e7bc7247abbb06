// The operands of one GEMM task in the layouts the kernels assume
// (docs/cpu-gemm.md, "Layouts"): A row-major with rows zero-padded to Kp =
// ceil(K/kg)*kg, B prepacked k-group-interleaved [Kp/kg][N][kg], C row-major,
// `batch` of each back to back. Inputs are seeded random values of the
// intrinsic's types (f32; u8 A and s8 B; bf16 as raw 16-bit patterns).
#pragma once

#include <cstdint>
#include <cstdlib>
#include <memory>

#include "ucmoh/cpu_gemm/gemm_problem.h"
#include "ucmoh/cpu_gemm/isa_profile.h"
#include "ucmoh/status.h"

namespace ucmoh::cpu_gemm {

// Zero-initialized, 64-byte aligned bytes.
class AlignedBuffer {
 public:
  AlignedBuffer() = default;
  explicit AlignedBuffer(size_t bytes);
  uint8_t* data() const { return data_.get(); }
  size_t size() const { return size_; }

 private:
  struct Free {
    void operator()(uint8_t* p) const { std::free(p); }
  };
  std::unique_ptr<uint8_t[], Free> data_;
  size_t size_ = 0;
};

struct GemmOperands {
  GemmProblem problem;
  IsaProfile profile;
  int64_t kp = 0;  // K rounded up to whole k-groups
  AlignedBuffer a, b, c;

  int64_t a_elements() const { return problem.m * kp; }  // per batch
  int64_t b_elements() const { return kp * problem.n; }  // per batch
  int64_t c_elements() const { return problem.m * problem.n; }
  uint8_t* A(int64_t batch) const { return a.data() + batch * a_elements() * profile.input_bytes; }
  uint8_t* B(int64_t batch) const { return b.data() + batch * b_elements() * profile.input_bytes; }
  uint8_t* C(int64_t batch) const { return c.data() + batch * c_elements() * profile.acc_bytes; }
};

// Bytes past the end of B, so an unpacked edge tile's full-width vector loads
// stay inside the allocation (the columns they read past N feed only C
// columns that are never written back).
constexpr size_t kBPaddingBytes = 4096;

// Allocates and fills the operands; C starts at zero.
Expected<std::shared_ptr<GemmOperands>> MakeGemmOperands(const GemmProblem& problem,
                                                         const IsaProfile& profile,
                                                         uint64_t seed);

void ZeroC(GemmOperands& operands);

// bf16 <-> f32 by bit pattern (bf16 is the top half of an f32).
float Bf16ToFloat(uint16_t bits);
uint16_t FloatToBf16(float value);  // round to nearest even

}  // namespace ucmoh::cpu_gemm
