// arm.neon: fmla on 128-bit NEON registers (vfmaq_f32), f32, 4 lanes, 32
// registers. A is broadcast one element at a time (ld1r); every C element is
// one fused multiply-add chain in k order, as on x86.
#include <arm_neon.h>

#include <cstdint>

#include "ucmoh/arm/arm_kernels.h"

#define UCMOH_KERNEL_TARGET "arch=armv8-a+simd"
#define UCMOH_KERNEL_FINDER FindNeonKernel
#define UCMOH_OP __attribute__((target(UCMOH_KERNEL_TARGET), always_inline)) static inline

namespace ucmoh::arm {
namespace {
struct Ops {
  using A = float;
  using B = float;
  using C = float;
  using AVec = float32x4_t;
  using BVec = float32x4_t;
  using AccVec = float32x4_t;
  static constexpr int kLanes = 4, kGroup = 1, kRegisters = 32;
  UCMOH_OP AccVec LoadC(const C* p) { return vld1q_f32(p); }
  UCMOH_OP void StoreC(C* p, AccVec v) { vst1q_f32(p, v); }
  UCMOH_OP BVec LoadB(const B* p) { return vld1q_f32(p); }
  UCMOH_OP AVec BroadcastA(const A* p) { return vld1q_dup_f32(p); }
  UCMOH_OP AccVec Dot(AccVec acc, AVec a, BVec b) { return vfmaq_f32(acc, a, b); }
};
}  // namespace
#include "ucmoh/cpu_gemm/micro_kernel_template.inc"
}  // namespace ucmoh::arm
