// The project's own implicit-GEMM conv2d fprop kernel on mma.sync, written in
// the shape of CUTLASS's (not CUTLASS itself: no CUTLASS headers are packaged
// for Debian, docs/tensorcore.md). NHWC activations x, KRSC filters w, NPQK
// output y, as GEMM: M = N*P*Q rows, N = K columns, reduction R*S*C.
//
// A thread block computes a CTA_M x CTA_N tile of y with WARPS_M x WARPS_N
// warps, walking the reduction CTA_K elements at a time through STAGES
// shared-memory buffers:
//  - sm_80 instructions (Instr::kCpAsync): global -> shared with 16-byte
//    cp.async, STAGES - 1 tiles in flight (CUTLASS's multistage mainloop);
//  - sm_75 instructions: global -> registers -> shared, double-buffered
//    (CUTLASS's Turing pipelined mainloop; STAGES must be 2).
// The iterator over the activations is CUTLASS's two algorithms: analytic
// recomputes (n, p, q) and (r, s, c) with divisions at every k tile;
// optimized decomposes once and then steps (r, s, c) by additions.
#pragma once

#include <cuda_fp16.h>

#include <cstdint>

#include "conv_shape.h"
#include "mma_instructions.cuh"

namespace ucmoh::tensorcore::measure {

template <typename Instr, int CTA_M, int CTA_N, int CTA_K, int STAGES, int WARPS_M, int WARPS_N, bool OPTIMIZED>
struct ConvKernel {
  using Element = typename Instr::Element;
  static constexpr int kThreads = WARPS_M * WARPS_N * 32;
  static constexpr int kChunkElements = 16 / Instr::kElementBytes;  // one 16-byte access
  static constexpr int kChunksPerRow = CTA_K / kChunkElements;
  // Shared-memory rows are padded by 16 bytes so that the 8 rows a fragment
  // load touches fall in distinct banks.
  static constexpr int kRowElements = CTA_K + kChunkElements;
  static constexpr int kStageElements = (CTA_M + CTA_N) * kRowElements;
  static constexpr int kSharedBytes = STAGES * kStageElements * Instr::kElementBytes;
  static constexpr int kAChunks = CTA_M * kChunksPerRow / kThreads;  // per thread
  static constexpr int kBChunks = CTA_N * kChunksPerRow / kThreads;
  static constexpr int kWarpM = CTA_M / WARPS_M, kWarpN = CTA_N / WARPS_N;
  static constexpr int kMmaM = kWarpM / Instr::kM, kMmaN = kWarpN / Instr::kN;

  static_assert(CTA_K % kChunkElements == 0, "k tile is whole 16-byte accesses");
  static_assert(CTA_M * kChunksPerRow % kThreads == 0 && CTA_N * kChunksPerRow % kThreads == 0,
                "every thread copies the same number of accesses");
  static_assert(kWarpM % Instr::kM == 0 && kWarpN % Instr::kN == 0 && CTA_K % Instr::kK == 0,
                "warp tile is whole instructions");
  static_assert(Instr::kCpAsync || STAGES == 2, "register-pipelined kernels double-buffer");
  static_assert(STAGES >= 2, "at least two stages");
};

namespace detail {

__device__ inline uint32_t SharedAddress(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__device__ inline void CpAsync16(void* shared, const void* global, bool valid) {
  // src-size 0 fills the 16 bytes with zeros (padding, tails) without reading.
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(SharedAddress(shared)), "l"(global),
               "r"(valid ? 16 : 0));
}
__device__ inline void CpAsyncCommit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N>
__device__ inline void CpAsyncWait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

// Where a thread's activation accesses start, per output row (n, p, q).
struct RowOrigin {
  int n, h0, w0;  // h0 = p * stride_h - pad_h
  bool valid;     // the row is inside M
};

__device__ inline RowOrigin OriginOf(const ConvShape& s, int m) {
  RowOrigin o;
  o.valid = m < s.gemm_m();
  const int pq = s.p * s.q;
  const int mm = o.valid ? m : 0;
  o.n = mm / pq;
  const int rest = mm - o.n * pq;
  const int p = rest / s.q, q = rest - (rest / s.q) * s.q;
  o.h0 = p * s.stride_h - s.pad_h;
  o.w0 = q * s.stride_w - s.pad_w;
  return o;
}

// The filter tap and channel of reduction index kk.
struct Tap {
  int r, s, c;
};

__device__ inline Tap TapOf(const ConvShape& shape, int kk) {
  Tap t;
  const int rs = kk / shape.c;
  t.c = kk - rs * shape.c;
  t.r = rs / shape.s;
  t.s = rs - t.r * shape.s;
  return t;
}

__device__ inline void Advance(const ConvShape& shape, Tap& t, int by) {
  t.c += by;
  while (t.c >= shape.c) {
    t.c -= shape.c;
    if (++t.s == shape.s) {
      t.s = 0;
      ++t.r;
    }
  }
}

// The 16 bytes of x at (row origin, tap), or nullptr where they are padding.
template <typename Element>
__device__ inline const Element* ActivationAt(const Element* x, const ConvShape& s, const RowOrigin& o,
                                              const Tap& t) {
  const int hi = o.h0 + t.r * s.dilation_h, wi = o.w0 + t.s * s.dilation_w;
  if (!o.valid || t.r >= s.r || hi < 0 || hi >= s.h || wi < 0 || wi >= s.w) return nullptr;
  return x + ((static_cast<int64_t>(o.n) * s.h + hi) * s.w + wi) * s.c + t.c;
}

}  // namespace detail

template <typename Instr, int CTA_M, int CTA_N, int CTA_K, int STAGES, int WARPS_M, int WARPS_N, bool OPTIMIZED>
__global__ void __launch_bounds__(WARPS_M * WARPS_N * 32)
    ConvFprop(const typename Instr::Element* __restrict__ x, const typename Instr::Element* __restrict__ w,
              typename Instr::Out* __restrict__ y, ConvShape shape) {
  using K = ConvKernel<Instr, CTA_M, CTA_N, CTA_K, STAGES, WARPS_M, WARPS_N, OPTIMIZED>;
  using Element = typename Instr::Element;
  extern __shared__ __align__(16) unsigned char shared_raw[];
  Element* shared = reinterpret_cast<Element*>(shared_raw);

  const int tid = threadIdx.x;
  const int block_m = blockIdx.x * CTA_M, block_n = blockIdx.y * CTA_N;
  const int gemm_m = shape.gemm_m(), gemm_n = shape.k, gemm_k = shape.gemm_k();
  const int k_tiles = (gemm_k + CTA_K - 1) / CTA_K;

  // This thread's accesses: row and 16-byte chunk within the tile.
  int a_row[K::kAChunks], a_chunk[K::kAChunks], b_row[K::kBChunks], b_chunk[K::kBChunks];
  detail::RowOrigin a_origin[K::kAChunks];
  detail::Tap a_tap[K::kAChunks];
#pragma unroll
  for (int i = 0; i < K::kAChunks; ++i) {
    const int index = tid + i * K::kThreads;
    a_row[i] = index / K::kChunksPerRow;
    a_chunk[i] = index % K::kChunksPerRow;
    if (OPTIMIZED) {
      a_origin[i] = detail::OriginOf(shape, block_m + a_row[i]);
      a_tap[i] = detail::TapOf(shape, a_chunk[i] * K::kChunkElements);
    }
  }
#pragma unroll
  for (int i = 0; i < K::kBChunks; ++i) {
    const int index = tid + i * K::kThreads;
    b_row[i] = index / K::kChunksPerRow;
    b_chunk[i] = index % K::kChunksPerRow;
  }

  auto a_tile = [&](int stage) { return shared + stage * K::kStageElements; };
  auto b_tile = [&](int stage) { return shared + stage * K::kStageElements + CTA_M * K::kRowElements; };

  // Source of A access i for k tile kt (nullptr: zeros). The optimized
  // iterator is called for consecutive kt only and steps its taps.
  auto a_source = [&](int i, int kt) -> const Element* {
    const int kk = kt * CTA_K + a_chunk[i] * K::kChunkElements;
    if (kk >= gemm_k) return nullptr;
    if (OPTIMIZED) return detail::ActivationAt(x, shape, a_origin[i], a_tap[i]);
    return detail::ActivationAt(x, shape, detail::OriginOf(shape, block_m + a_row[i]), detail::TapOf(shape, kk));
  };
  auto a_step = [&](int i) {
    if (OPTIMIZED) detail::Advance(shape, a_tap[i], CTA_K);
  };
  auto b_source = [&](int i, int kt) -> const Element* {
    const int kk = kt * CTA_K + b_chunk[i] * K::kChunkElements;
    const int n = block_n + b_row[i];
    if (kk >= gemm_k || n >= gemm_n) return nullptr;
    return w + static_cast<int64_t>(n) * gemm_k + kk;
  };

  typename Instr::Acc acc[K::kMmaM][K::kMmaN][Instr::kCRegs];
#pragma unroll
  for (int mi = 0; mi < K::kMmaM; ++mi)
#pragma unroll
    for (int ni = 0; ni < K::kMmaN; ++ni)
#pragma unroll
      for (int c = 0; c < Instr::kCRegs; ++c) acc[mi][ni][c] = 0;

  const int lane = tid % 32, warp = tid / 32;
  const int g = lane / 4, t = lane % 4;
  const int warp_m0 = (warp % WARPS_M) * K::kWarpM, warp_n0 = (warp / WARPS_M) * K::kWarpN;

  auto compute_tile = [&](int stage) {
    const Element* as = a_tile(stage);
    const Element* bs = b_tile(stage);
#pragma unroll
    for (int ks = 0; ks < CTA_K; ks += Instr::kK) {
      uint32_t a_frag[K::kMmaM][Instr::kARegs], b_frag[K::kMmaN][Instr::kBRegs];
#pragma unroll
      for (int mi = 0; mi < K::kMmaM; ++mi)
#pragma unroll
        for (int i = 0; i < Instr::kARegs; ++i) {
          const int row = warp_m0 + mi * Instr::kM + Instr::ARow(i, g);
          a_frag[mi][i] = *reinterpret_cast<const uint32_t*>(as + row * K::kRowElements + ks + Instr::ACol(i, t));
        }
#pragma unroll
      for (int ni = 0; ni < K::kMmaN; ++ni)
#pragma unroll
        for (int j = 0; j < Instr::kBRegs; ++j) {
          const int col = warp_n0 + ni * Instr::kN + g;
          b_frag[ni][j] = *reinterpret_cast<const uint32_t*>(bs + col * K::kRowElements + ks + Instr::BRow(j, t));
        }
#pragma unroll
      for (int mi = 0; mi < K::kMmaM; ++mi)
#pragma unroll
        for (int ni = 0; ni < K::kMmaN; ++ni) Instr::Mma(acc[mi][ni], a_frag[mi], b_frag[ni]);
    }
  };

  if constexpr (Instr::kCpAsync) {
    auto load_tile = [&](int stage, int kt) {
      Element* as = a_tile(stage);
      Element* bs = b_tile(stage);
#pragma unroll
      for (int i = 0; i < K::kAChunks; ++i) {
        const Element* src = a_source(i, kt);
        detail::CpAsync16(as + a_row[i] * K::kRowElements + a_chunk[i] * K::kChunkElements, src ? src : x,
                          src != nullptr);
        a_step(i);
      }
#pragma unroll
      for (int i = 0; i < K::kBChunks; ++i) {
        const Element* src = b_source(i, kt);
        detail::CpAsync16(bs + b_row[i] * K::kRowElements + b_chunk[i] * K::kChunkElements, src ? src : w,
                          src != nullptr);
      }
    };
#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
      if (s < k_tiles) load_tile(s, s);
      detail::CpAsyncCommit();
    }
    for (int kt = 0; kt < k_tiles; ++kt) {
      detail::CpAsyncWait<STAGES - 2>();
      __syncthreads();
      const int next = kt + STAGES - 1;
      if (next < k_tiles) load_tile(next % STAGES, next);
      detail::CpAsyncCommit();
      compute_tile(kt % STAGES);
    }
  } else {
    uint4 a_regs[K::kAChunks], b_regs[K::kBChunks];
    auto fetch = [&](int kt) {
#pragma unroll
      for (int i = 0; i < K::kAChunks; ++i) {
        const Element* src = a_source(i, kt);
        a_regs[i] = src ? *reinterpret_cast<const uint4*>(src) : make_uint4(0, 0, 0, 0);
        a_step(i);
      }
#pragma unroll
      for (int i = 0; i < K::kBChunks; ++i) {
        const Element* src = b_source(i, kt);
        b_regs[i] = src ? *reinterpret_cast<const uint4*>(src) : make_uint4(0, 0, 0, 0);
      }
    };
    auto store = [&](int stage) {
      Element* as = a_tile(stage);
      Element* bs = b_tile(stage);
#pragma unroll
      for (int i = 0; i < K::kAChunks; ++i)
        *reinterpret_cast<uint4*>(as + a_row[i] * K::kRowElements + a_chunk[i] * K::kChunkElements) = a_regs[i];
#pragma unroll
      for (int i = 0; i < K::kBChunks; ++i)
        *reinterpret_cast<uint4*>(bs + b_row[i] * K::kRowElements + b_chunk[i] * K::kChunkElements) = b_regs[i];
    };
    fetch(0);
    store(0);
    __syncthreads();
    for (int kt = 0; kt < k_tiles; ++kt) {
      if (kt + 1 < k_tiles) fetch(kt + 1);  // in flight while this tile computes
      compute_tile(kt % 2);
      if (kt + 1 < k_tiles) store((kt + 1) % 2);
      __syncthreads();
    }
  }

  // Epilogue: the accumulators in the output type, two columns per access.
#pragma unroll
  for (int mi = 0; mi < K::kMmaM; ++mi)
#pragma unroll
    for (int ni = 0; ni < K::kMmaN; ++ni) {
      const int col = block_n + warp_n0 + ni * Instr::kN + 2 * t;
      const int row0 = block_m + warp_m0 + mi * Instr::kM;
      if (col >= gemm_n) continue;
      if constexpr (sizeof(typename Instr::Out) == 2) {  // packed f16 pairs
#pragma unroll
        for (int i = 0; i < Instr::kCRegs; ++i) {
          const int row = row0 + AccRow<Instr>(i, g);
          if (row < gemm_m)
            *reinterpret_cast<uint32_t*>(y + static_cast<int64_t>(row) * gemm_n + col) = acc[mi][ni][i];
        }
      } else {
#pragma unroll
        for (int i = 0; i < Instr::kCRegs; i += 2) {
          const int row = row0 + AccRow<Instr>(i, g);
          if (row < gemm_m) {
            typename Instr::Out* out = y + static_cast<int64_t>(row) * gemm_n + col;
            if constexpr (sizeof(typename Instr::Acc) == 4 && Instr::kElementBytes == 1) {
              *reinterpret_cast<int2*>(out) = make_int2(static_cast<int>(acc[mi][ni][i]),
                                                        static_cast<int>(acc[mi][ni][i + 1]));
            } else {
              *reinterpret_cast<float2*>(out) = make_float2(acc[mi][ni][i], acc[mi][ni][i + 1]);
            }
          }
        }
      }
    }
}

}  // namespace ucmoh::tensorcore::measure
