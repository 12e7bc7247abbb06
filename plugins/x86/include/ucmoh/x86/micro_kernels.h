// The register-tile micro-kernels of the x86 intrinsics, one per
// (intrinsic, mr, nr_vec, k_unroll) inside the register budget
// (docs/cpu-gemm.md, "Register budget"). Each kernel is a template
// instantiation compiled with its instruction set's per-function target
// attribute, so this library runs on any x86-64 CPU and executes an
// instruction only when the driver asks for that intrinsic's kernel; callers
// check CpuSupportsIntrinsic first (runtime feature detection).
#pragma once

#include <cstdint>
#include <string>

namespace ucmoh::x86 {

// One call: C[mr x nr] += A[mr x (k_steps*kg)] * B[(k_steps*kg) x nr], with C
// loaded into the mr * nr_vec accumulators first and stored back at the end.
// Element types are the intrinsic's (A f32/u8/bf16, B f32/s8/bf16, C f32/s32).
struct KernelCall {
  const void* const* a_rows = nullptr;  // mr pointers: each row's first k-group of this block
  int64_t a_step = 0;                   // A elements between k-group steps of a row: kg, or mr*kg packed
  const void* b = nullptr;              // first k-group row of this block at the tile's first column
  int64_t b_step = 0;                   // B elements between k-group rows: N*kg, or nr*kg packed
  void* c = nullptr;                    // the tile's top-left element
  int64_t ldc = 0;                      // C elements between rows
  int64_t k_steps = 0;                  // k-group steps of this k block
};

using KernelFn = void (*)(const KernelCall&);

// The kernel for a register tile and unroll, or nullptr when the intrinsic is
// unknown or the tile breaks its register budget.
KernelFn FindMicroKernel(const std::string& intrinsic, int64_t mr, int64_t nr_vec, int64_t k_unroll);

// Whether this CPU executes the intrinsic's instructions (CPUID via the
// compiler's __builtin_cpu_supports), independent of /proc/cpuinfo.
bool CpuSupportsIntrinsic(const std::string& intrinsic);

// The per-ISA tables (kernels/*.cpp).
KernelFn FindAvx2Kernel(int64_t mr, int64_t nr_vec, int64_t k_unroll);
KernelFn FindAvx512Kernel(int64_t mr, int64_t nr_vec, int64_t k_unroll);
KernelFn FindVnniKernel(int64_t mr, int64_t nr_vec, int64_t k_unroll);
KernelFn FindBf16Kernel(int64_t mr, int64_t nr_vec, int64_t k_unroll);

}  // namespace ucmoh::x86
