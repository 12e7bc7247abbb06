// x86.avx2: vfmadd231ps on ymm (_mm256_fmadd_ps), f32 -> f32, 8 lanes, 16 registers.
#include <immintrin.h>

#include "ucmoh/x86/micro_kernels.h"

#define UCMOH_KERNEL_TARGET "avx2,fma"
#define UCMOH_KERNEL_FINDER FindAvx2Kernel
#define UCMOH_OP __attribute__((target(UCMOH_KERNEL_TARGET), always_inline)) static inline

namespace ucmoh::x86 {
namespace {
struct Ops {
  using A = float;
  using B = float;
  using C = float;
  using AVec = __m256;
  using BVec = __m256;
  using AccVec = __m256;
  static constexpr int kLanes = 8, kGroup = 1, kRegisters = 16;
  UCMOH_OP AccVec LoadC(const C* p) { return _mm256_loadu_ps(p); }
  UCMOH_OP void StoreC(C* p, AccVec v) { _mm256_storeu_ps(p, v); }
  UCMOH_OP BVec LoadB(const B* p) { return _mm256_loadu_ps(p); }
  UCMOH_OP AVec BroadcastA(const A* p) { return _mm256_broadcast_ss(p); }
  UCMOH_OP AccVec Dot(AccVec acc, AVec a, BVec b) { return _mm256_fmadd_ps(a, b, acc); }
};
}  // namespace
#include "ucmoh/cpu_gemm/micro_kernel_template.inc"
}  // namespace ucmoh::x86
