// x86.vnni: vpdpbusd on zmm (_mm512_dpbusd_epi32), u8 x s8 groups of 4 -> s32,
// 16 lanes, 32 registers. A holds the unsigned bytes (broadcast 4 at a time),
// B the signed ones; no saturation, as the instruction does.
#include <immintrin.h>

#include <cstdint>
#include <cstring>

#include "ucmoh/x86/micro_kernels.h"

#define UCMOH_KERNEL_TARGET "avx512f,avx512vnni"
#define UCMOH_KERNEL_FINDER FindVnniKernel
#define UCMOH_OP __attribute__((target(UCMOH_KERNEL_TARGET), always_inline)) static inline

namespace ucmoh::x86 {
namespace {
struct Ops {
  using A = uint8_t;
  using B = int8_t;
  using C = int32_t;
  using AVec = __m512i;
  using BVec = __m512i;
  using AccVec = __m512i;
  static constexpr int kLanes = 16, kGroup = 4, kRegisters = 32;
  UCMOH_OP AccVec LoadC(const C* p) { return _mm512_loadu_si512(p); }
  UCMOH_OP void StoreC(C* p, AccVec v) { _mm512_storeu_si512(p, v); }
  UCMOH_OP BVec LoadB(const B* p) { return _mm512_loadu_si512(p); }
  UCMOH_OP AVec BroadcastA(const A* p) {
    int32_t group;
    std::memcpy(&group, p, sizeof(group));
    return _mm512_set1_epi32(group);
  }
  UCMOH_OP AccVec Dot(AccVec acc, AVec a, BVec b) { return _mm512_dpbusd_epi32(acc, a, b); }
};
}  // namespace
#include "ucmoh/cpu_gemm/micro_kernel_template.inc"
}  // namespace ucmoh::x86
