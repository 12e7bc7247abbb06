// x86.bf16: vdpbf16ps on zmm (_mm512_dpbf16_ps), bf16 pairs -> f32, 16 lanes,
// 32 registers. bf16 values are stored as their 16 raw bits (uint16_t).
#include <immintrin.h>

#include <cstdint>
#include <cstring>

#include "ucmoh/x86/micro_kernels.h"

#define UCMOH_KERNEL_TARGET "avx512f,avx512bf16"
#define UCMOH_KERNEL_FINDER FindBf16Kernel
#define UCMOH_OP __attribute__((target(UCMOH_KERNEL_TARGET), always_inline)) static inline

namespace ucmoh::x86 {
namespace {
struct Ops {
  using A = uint16_t;
  using B = uint16_t;
  using C = float;
  using AVec = __m512bh;
  using BVec = __m512bh;
  using AccVec = __m512;
  static constexpr int kLanes = 16, kGroup = 2, kRegisters = 32;
  UCMOH_OP AccVec LoadC(const C* p) { return _mm512_loadu_ps(p); }
  UCMOH_OP void StoreC(C* p, AccVec v) { _mm512_storeu_ps(p, v); }
  UCMOH_OP BVec LoadB(const B* p) { return (__m512bh)_mm512_loadu_si512(p); }
  UCMOH_OP AVec BroadcastA(const A* p) {
    int32_t pair;
    std::memcpy(&pair, p, sizeof(pair));
    return (__m512bh)_mm512_set1_epi32(pair);
  }
  UCMOH_OP AccVec Dot(AccVec acc, AVec a, BVec b) { return _mm512_dpbf16_ps(acc, a, b); }
};
}  // namespace
#include "ucmoh/cpu_gemm/micro_kernel_template.inc"
}  // namespace ucmoh::x86
