#include "ucmoh/cpu_gemm/reference_gemm.h"

#include <cmath>
#include <cstring>

namespace ucmoh::cpu_gemm {

namespace {

// Element `index` of A or B as a double, in the intrinsic's input type:
// f32, bf16, or bytes (u8 A and s8 B for "u8s8", s8 both for "s8").
double InputAt(const GemmOperands& ops, const uint8_t* base, int64_t index, bool is_a) {
  const int64_t in = ops.profile.input_bytes;
  if (in == 4) {
    float v;
    std::memcpy(&v, base + index * 4, 4);
    return v;
  }
  if (in == 2) {
    uint16_t bits;
    std::memcpy(&bits, base + index * 2, 2);
    return Bf16ToFloat(bits);
  }
  const bool unsigned_a = ops.profile.input_type == "u8s8";
  if (is_a && unsigned_a) return static_cast<double>(base[index]);
  return static_cast<double>(static_cast<int8_t>(base[index]));
}

struct ElementCheck {
  bool ok = false;
  double got = 0, want = 0;
};

ElementCheck CheckElement(const GemmOperands& ops, int64_t b, int64_t i, int64_t j) {
  const GemmProblem& p = ops.problem;
  const int64_t kg = ops.profile.k_group;
  double sum = 0, magnitude = 0;
  float fma_chain = 0;  // what an in-order fp32 FMA kernel computes, rounding for rounding
  for (int64_t k = 0; k < p.k; ++k) {
    const double a = InputAt(ops, ops.A(b), i * ops.kp + k, true);
    const double w = InputAt(ops, ops.B(b), (k / kg) * p.n * kg + j * kg + k % kg, false);
    sum += a * w;
    magnitude += std::fabs(a * w);
    fma_chain = std::fma(static_cast<float>(a), static_cast<float>(w), fma_chain);
  }
  const uint8_t* c = ops.C(b) + (i * p.n + j) * 4;
  ElementCheck check;
  check.want = sum;
  if (ops.profile.input_bytes == 1) {
    int32_t v;
    std::memcpy(&v, c, 4);
    check.got = v;
    check.ok = static_cast<int64_t>(v) == static_cast<int64_t>(sum);
    return check;
  }
  float v;
  std::memcpy(&v, c, 4);
  check.got = v;
  if (ops.profile.input_bytes == 4) {
    check.ok = v == fma_chain;
  } else {
    const double eps = std::ldexp(1.0, -22);
    check.ok = std::fabs(check.got - sum) <= static_cast<double>(p.k + 1) * eps * magnitude + 1e-30;
  }
  return check;
}

}  // namespace

int64_t CheckAgainstReference(const GemmOperands& ops, std::string* first) {
  const GemmProblem& p = ops.problem;
  int64_t bad = 0;
  for (int64_t b = 0; b < p.batch; ++b) {
    for (int64_t i = 0; i < p.m; ++i) {
      for (int64_t j = 0; j < p.n; ++j) {
        const ElementCheck check = CheckElement(ops, b, i, j);
        if (!check.ok && bad++ == 0 && first) {
          *first = "C[" + std::to_string(b) + "][" + std::to_string(i) + "][" + std::to_string(j) +
                   "] = " + std::to_string(check.got) + ", reference " + std::to_string(check.want);
        }
      }
    }
  }
  return bad;
}

}  // namespace ucmoh::cpu_gemm
