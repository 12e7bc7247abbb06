// The contract between the blocked GEMM driver and a target's register-tile
// micro-kernels (docs/cpu-gemm.md, "Register budget"). A target (x86, arm)
// supplies its kernels as a KernelLibrary; the driver, operands, timing and
// measurement around them are the same on every CPU.
#pragma once

#include <cstdint>
#include <string>

namespace ucmoh::cpu_gemm {

// One call: C[mr x nr] += A[mr x (k_steps*kg)] * B[(k_steps*kg) x nr], with C
// loaded into the mr * nr_vec accumulators first and stored back at the end.
// Element types are the intrinsic's (A f32/u8/s8/bf16, B f32/s8/bf16, C f32/s32).
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

// A target's micro-kernels, as plain functions so a library of them is a
// constant table.
struct KernelLibrary {
  // Whether this CPU executes the intrinsic's instructions (asked of the CPU
  // itself: CPUID, or the kernel's hardware capabilities), never /proc text.
  bool (*cpu_supports)(const std::string& intrinsic) = nullptr;
  // The kernel for a register tile and unroll, or nullptr when the intrinsic
  // is unknown or the tile breaks its register budget.
  KernelFn (*find)(const std::string& intrinsic, int64_t mr, int64_t nr_vec, int64_t k_unroll) = nullptr;
  // The compiler target the intrinsic's kernels are built for
  // ("avx512f,avx512vnni", "armv8.2-a+dotprod"): recorded in provenance.
  std::string (*target_attribute)(const std::string& intrinsic) = nullptr;
};

}  // namespace ucmoh::cpu_gemm
