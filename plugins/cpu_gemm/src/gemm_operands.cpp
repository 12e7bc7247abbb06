#include "ucmoh/cpu_gemm/gemm_operands.h"

#include <cstring>
#include <random>

namespace ucmoh::cpu_gemm {

AlignedBuffer::AlignedBuffer(size_t bytes) : size_(bytes) {
  const size_t rounded = (bytes + 63) / 64 * 64 + 64;
  data_.reset(static_cast<uint8_t*>(std::aligned_alloc(64, rounded)));
  if (data_) std::memset(data_.get(), 0, rounded);
}

float Bf16ToFloat(uint16_t bits) {
  const uint32_t wide = static_cast<uint32_t>(bits) << 16;
  float value;
  std::memcpy(&value, &wide, sizeof(value));
  return value;
}

uint16_t FloatToBf16(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  bits += 0x7FFF + ((bits >> 16) & 1);
  return static_cast<uint16_t>(bits >> 16);
}

namespace {

// One random input element of the intrinsic's type, written at `out`;
// `is_a` picks A's type (u8) over B's (s8) for VNNI.
void FillElement(const std::string& type, bool is_a, std::mt19937_64& rng, uint8_t* out) {
  const uint64_t r = rng();
  if (type == "u8s8") {
    // The same random byte reads as 0..255 in A (u8) and -128..127 in B (s8).
    (void)is_a;
    *out = static_cast<uint8_t>(r);
    return;
  }
  // Uniform in [-1, 1) on a 2^-11 grid: small, finite, no denormals.
  const float value = static_cast<float>(static_cast<int64_t>(r >> 52) - 2048) / 2048.0f;
  if (type == "bf16") {
    const uint16_t bits = FloatToBf16(value);
    std::memcpy(out, &bits, sizeof(bits));
  } else {
    std::memcpy(out, &value, sizeof(value));
  }
}

}  // namespace

Expected<std::shared_ptr<GemmOperands>> MakeGemmOperands(const GemmProblem& problem,
                                                         const IsaProfile& profile,
                                                         uint64_t seed) {
  auto ops = std::make_shared<GemmOperands>();
  ops->problem = problem;
  ops->profile = profile;
  const int64_t kg = profile.k_group;
  ops->kp = (problem.k + kg - 1) / kg * kg;
  const size_t in = static_cast<size_t>(profile.input_bytes);
  ops->a = AlignedBuffer(static_cast<size_t>(problem.batch * ops->a_elements()) * in);
  ops->b = AlignedBuffer(static_cast<size_t>(problem.batch * ops->b_elements()) * in + kBPaddingBytes);
  ops->c = AlignedBuffer(static_cast<size_t>(problem.batch * ops->c_elements() * profile.acc_bytes));
  if (!ops->a.data() || !ops->b.data() || !ops->c.data()) {
    return Status::Internal("out of memory for the operands of a " + std::to_string(problem.m) + "x" +
                            std::to_string(problem.n) + "x" + std::to_string(problem.k) + " GEMM");
  }
  // Infer the element type name from the profile (input bytes 4: f32, 2: bf16, 1: u8s8).
  const std::string type = in == 4 ? "f32" : in == 2 ? "bf16" : "u8s8";
  std::mt19937_64 rng(seed);
  for (int64_t b = 0; b < problem.batch; ++b) {
    // A: M rows of K values, the padding columns K..Kp stay zero.
    for (int64_t row = 0; row < problem.m; ++row) {
      for (int64_t col = 0; col < problem.k; ++col) {
        FillElement(type, true, rng, ops->A(b) + static_cast<size_t>(row * ops->kp + col) * in);
      }
    }
    // B: element (k, n) lives at [k/kg][n][k%kg]; rows K..Kp stay zero.
    for (int64_t k = 0; k < problem.k; ++k) {
      for (int64_t n = 0; n < problem.n; ++n) {
        const int64_t index = (k / kg) * problem.n * kg + n * kg + k % kg;
        FillElement(type, false, rng, ops->B(b) + static_cast<size_t>(index) * in);
      }
    }
  }
  return ops;
}

void ZeroC(GemmOperands& operands) {
  std::memset(operands.c.data(), 0, operands.c.size());
}

}  // namespace ucmoh::cpu_gemm
