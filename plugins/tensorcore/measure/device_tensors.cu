#include "device_tensors.h"

#include <cuda_fp16.h>
#include <cuda_runtime.h>

namespace ucmoh::tensorcore::measure {

namespace {

constexpr int kBlock = 256;

int Blocks(int64_t count) { return static_cast<int>((count + kBlock - 1) / kBlock); }

__device__ uint32_t Hash(uint32_t seed, uint64_t i) {
  uint64_t z = i * 0x9E3779B97F4A7C15ull + seed;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return static_cast<uint32_t>(z ^ (z >> 31));
}

__global__ void Fill(void* data, int64_t count, ElementType type, uint32_t seed) {
  const int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i >= count) return;
  const int value = static_cast<int>(Hash(seed, i) % 5) - 2;
  if (type == ElementType::kF16) static_cast<__half*>(data)[i] = __int2half_rn(value);
  else static_cast<int8_t*>(data)[i] = static_cast<int8_t>(value);
}

template <typename In, typename Acc>
__global__ void Reference(ConvShape s, const In* x, const In* w, Acc* ref) {
  const int64_t index = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (index >= static_cast<int64_t>(s.gemm_m()) * s.k) return;
  const int k = static_cast<int>(index % s.k);
  const int m = static_cast<int>(index / s.k);
  const int n = m / (s.p * s.q), p = (m / s.q) % s.p, q = m % s.q;
  Acc sum = 0;
  for (int r = 0; r < s.r; ++r) {
    const int hi = p * s.stride_h - s.pad_h + r * s.dilation_h;
    if (hi < 0 || hi >= s.h) continue;
    for (int t = 0; t < s.s; ++t) {
      const int wi = q * s.stride_w - s.pad_w + t * s.dilation_w;
      if (wi < 0 || wi >= s.w) continue;
      const In* xp = x + ((static_cast<int64_t>(n) * s.h + hi) * s.w + wi) * s.c;
      const In* wp = w + ((static_cast<int64_t>(k) * s.r + r) * s.s + t) * s.c;
      for (int c = 0; c < s.c; ++c) sum += static_cast<Acc>(xp[c]) * static_cast<Acc>(wp[c]);
    }
  }
  ref[index] = sum;
}

__device__ double AsDouble(const void* data, ElementType type, int64_t i) {
  switch (type) {
    case ElementType::kF16: return __half2float(static_cast<const __half*>(data)[i]);
    case ElementType::kF32: return static_cast<const float*>(data)[i];
    case ElementType::kS32: return static_cast<const int32_t*>(data)[i];
    case ElementType::kS8: return static_cast<const int8_t*>(data)[i];
  }
  return 0;
}

__global__ void Compare(const void* y, ElementType output, const void* reference, ElementType reference_type,
                        int64_t count, unsigned long long* mismatches) {
  const int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i >= count) return;
  const double got = AsDouble(y, output, i), want = AsDouble(reference, reference_type, i);
  const double tolerance = output == ElementType::kF16 ? fabs(want) / 512.0 : 0.0;
  if (!(fabs(got - want) <= tolerance)) atomicAdd(mismatches, 1ull);
}

}  // namespace

int ElementBytes(ElementType type) {
  switch (type) {
    case ElementType::kF16: return 2;
    case ElementType::kS8: return 1;
    case ElementType::kF32:
    case ElementType::kS32: return 4;
  }
  return 0;
}

int FillSmallIntegers(void* data, int64_t count, ElementType type, uint32_t seed) {
  Fill<<<Blocks(count), kBlock>>>(data, count, type, seed);
  return static_cast<int>(cudaGetLastError());
}

int ReferenceConv(const ConvShape& shape, const void* x, const void* w, ElementType input, void* reference) {
  const int64_t count = static_cast<int64_t>(shape.gemm_m()) * shape.k;
  if (input == ElementType::kF16)
    Reference<__half, float><<<Blocks(count), kBlock>>>(shape, static_cast<const __half*>(x),
                                                        static_cast<const __half*>(w), static_cast<float*>(reference));
  else
    Reference<int8_t, int32_t><<<Blocks(count), kBlock>>>(shape, static_cast<const int8_t*>(x),
                                                          static_cast<const int8_t*>(w),
                                                          static_cast<int32_t*>(reference));
  return static_cast<int>(cudaGetLastError());
}

int CountMismatches(const void* y, ElementType output, const void* reference, ElementType input, int64_t count,
                    int64_t* mismatches) {
  unsigned long long* device_count = nullptr;
  cudaError_t error = cudaMalloc(&device_count, sizeof(*device_count));
  if (error != cudaSuccess) return static_cast<int>(error);
  cudaMemset(device_count, 0, sizeof(*device_count));
  const ElementType reference_type = input == ElementType::kF16 ? ElementType::kF32 : ElementType::kS32;
  Compare<<<Blocks(count), kBlock>>>(y, output, reference, reference_type, count, device_count);
  unsigned long long host_count = 0;
  error = cudaMemcpy(&host_count, device_count, sizeof(host_count), cudaMemcpyDeviceToHost);
  cudaFree(device_count);
  *mismatches = static_cast<int64_t>(host_count);
  return static_cast<int>(error);
}

}  // namespace ucmoh::tensorcore::measure
