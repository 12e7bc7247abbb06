// The six warp-level mma.sync instructions of the tensorcore plugin, each with
// the register layout of its fragments (PTX ISA, "Matrix fragments for
// mma.m16n8k8 / m16n8k16 / m8n8k16 / m16n8k32"). Every fragment register
// holds 4 bytes that are consecutive along k (A row-major, B column-major),
// so a register is one 32-bit load from a k-contiguous shared-memory tile.
#pragma once

#include <cuda_fp16.h>

#include <cstdint>

namespace ucmoh::tensorcore::measure {

// Fields every instruction has: element and accumulator types, the m n k
// shape, fragment register counts, and whether the CUTLASS kernels of this
// instruction are the sm_80 multistage (cp.async) kind.
template <typename ElementT, typename AccT, typename OutT, int M, int N, int K, int ARegs, int BRegs,
          int CRegs, bool CpAsync>
struct MmaShape {
  using Element = ElementT;  // __half or int8_t
  using Acc = AccT;          // uint32_t (two f16 / one s32) or float
  using Out = OutT;          // the output tensor's element: the accumulator type
  static constexpr int kM = M, kN = N, kK = K;
  static constexpr int kARegs = ARegs, kBRegs = BRegs, kCRegs = CRegs;
  static constexpr bool kCpAsync = CpAsync;
  static constexpr int kElementBytes = sizeof(ElementT);
  static constexpr int kPerRegister = 4 / sizeof(ElementT);  // elements in one fragment register

  // Register i of the A fragment of lane (group g, thread-in-group t): its row
  // in the 16 (or 8) x K tile and its first k column.
  __device__ static int ARow(int i, int g) { return g + (kM == 16 ? 8 * (i & 1) : 0); }
  __device__ static int ACol(int i, int t) { return kPerRegister * t + (kM == 16 ? i >> 1 : i) * (kK / 2); }
  // Register j of the B fragment: its first k row (the column is g).
  __device__ static int BRow(int j, int t) { return kPerRegister * t + j * (kK / 2); }
};

struct H1688 : MmaShape<__half, uint32_t, __half, 16, 8, 8, 2, 1, 2, false> {
  __device__ static void Mma(Acc* c, const uint32_t* a, const uint32_t* b) {
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3}, {%4}, {%0,%1};\n"
                 : "+r"(c[0]), "+r"(c[1])
                 : "r"(a[0]), "r"(a[1]), "r"(b[0]));
  }
};

struct S1688 : MmaShape<__half, float, float, 16, 8, 8, 2, 1, 4, false> {
  __device__ static void Mma(Acc* c, const uint32_t* a, const uint32_t* b) {
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};\n"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(b[0]));
  }
};

struct I8816 : MmaShape<int8_t, uint32_t, int32_t, 8, 8, 16, 1, 1, 2, false> {
  __device__ static void Mma(Acc* c, const uint32_t* a, const uint32_t* b) {
    asm volatile("mma.sync.aligned.m8n8k16.row.col.s32.s8.s8.s32 {%0,%1}, {%2}, {%3}, {%0,%1};\n"
                 : "+r"(c[0]), "+r"(c[1])
                 : "r"(a[0]), "r"(b[0]));
  }
};

struct H16816 : MmaShape<__half, uint32_t, __half, 16, 8, 16, 4, 2, 2, true> {
  __device__ static void Mma(Acc* c, const uint32_t* a, const uint32_t* b) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%0,%1};\n"
                 : "+r"(c[0]), "+r"(c[1])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  }
};

struct S16816 : MmaShape<__half, float, float, 16, 8, 16, 4, 2, 4, true> {
  __device__ static void Mma(Acc* c, const uint32_t* a, const uint32_t* b) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  }
};

struct I16832 : MmaShape<int8_t, uint32_t, int32_t, 16, 8, 32, 4, 2, 4, true> {
  __device__ static void Mma(Acc* c, const uint32_t* a, const uint32_t* b) {
    asm volatile(
        "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};\n"
        : "+r"(c[0]), "+r"(c[1]), "+r"(c[2]), "+r"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  }
};

// Lane (g, t)'s accumulator register i: its row in the m x 8 tile and its
// column (the first of the pair it holds, for packed f16).
template <typename Instr>
__device__ int AccRow(int i, int g) {
  if (Instr::kM == 8) return g;
  return g + 8 * (i / (Instr::kCRegs / 2));
}

}  // namespace ucmoh::tensorcore::measure

namespace ucmoh::tensorcore::measure {

// The instruction types by the token measured_kernels.def names them with.
using h1688_t = H1688;
using s1688_t = S1688;
using i8816_t = I8816;
using h16816_t = H16816;
using s16816_t = S16816;
using i16832_t = I16832;

}  // namespace ucmoh::tensorcore::measure
