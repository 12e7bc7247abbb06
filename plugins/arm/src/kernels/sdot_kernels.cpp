// arm.sdot: the Armv8.2 DotProd SDOT (vdotq_s32), s8 x s8 groups of 4 -> s32,
// 4 lanes, 32 registers. A's group of 4 bytes is broadcast to every lane
// (ld1r of one 32-bit word), B holds 4 columns x 4 k per 128-bit vector
// (the k-group-interleaved layout VNNI uses). Integer sums: bit-exact.
#include <arm_neon.h>

#include <cstdint>
#include <cstring>

#include "ucmoh/arm/arm_kernels.h"

#define UCMOH_KERNEL_TARGET "arch=armv8.2-a+dotprod"
#define UCMOH_KERNEL_FINDER FindSdotKernel
#define UCMOH_OP __attribute__((target(UCMOH_KERNEL_TARGET), always_inline)) static inline

namespace ucmoh::arm {
namespace {
struct Ops {
  using A = int8_t;
  using B = int8_t;
  using C = int32_t;
  using AVec = int8x16_t;
  using BVec = int8x16_t;
  using AccVec = int32x4_t;
  static constexpr int kLanes = 4, kGroup = 4, kRegisters = 32;
  UCMOH_OP AccVec LoadC(const C* p) { return vld1q_s32(p); }
  UCMOH_OP void StoreC(C* p, AccVec v) { vst1q_s32(p, v); }
  UCMOH_OP BVec LoadB(const B* p) { return vld1q_s8(p); }
  UCMOH_OP AVec BroadcastA(const A* p) {
    int32_t group;
    std::memcpy(&group, p, sizeof(group));
    return vreinterpretq_s8_s32(vdupq_n_s32(group));
  }
  UCMOH_OP AccVec Dot(AccVec acc, AVec a, BVec b) { return vdotq_s32(acc, a, b); }
};
}  // namespace
#include "ucmoh/cpu_gemm/micro_kernel_template.inc"
}  // namespace ucmoh::arm
