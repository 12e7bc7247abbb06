// x86.avx512: vfmadd231ps on zmm (_mm512_fmadd_ps), f32 -> f32, 16 lanes, 32 registers.
#include <immintrin.h>

#include "ucmoh/x86/micro_kernels.h"

#define UCMOH_KERNEL_TARGET "avx512f"
#define UCMOH_KERNEL_FINDER FindAvx512Kernel
#define UCMOH_OP __attribute__((target(UCMOH_KERNEL_TARGET), always_inline)) static inline

namespace ucmoh::x86 {
namespace {
struct Ops {
  using A = float;
  using B = float;
  using C = float;
  using AVec = __m512;
  using BVec = __m512;
  using AccVec = __m512;
  static constexpr int kLanes = 16, kGroup = 1, kRegisters = 32;
  UCMOH_OP AccVec LoadC(const C* p) { return _mm512_loadu_ps(p); }
  UCMOH_OP void StoreC(C* p, AccVec v) { _mm512_storeu_ps(p, v); }
  UCMOH_OP BVec LoadB(const B* p) { return _mm512_loadu_ps(p); }
  UCMOH_OP AVec BroadcastA(const A* p) { return _mm512_set1_ps(*p); }
  UCMOH_OP AccVec Dot(AccVec acc, AVec a, BVec b) { return _mm512_fmadd_ps(a, b, acc); }
};
}  // namespace
#include "ucmoh/cpu_gemm/micro_kernel_template.inc"
}  // namespace ucmoh::x86
