// Instantiates the kernels of one instruction from measured_kernels.def into
// the launch table: included by kernels_<instruction>.cu after defining
// UCMOH_THIS_INSTRUCTION (h1688, ...). The other instructions' lines are
// discarded at compile time (if constexpr on a template argument).
#pragma once

#include <cuda_runtime.h>

#include <type_traits>
#include <vector>

#include "conv_kernel.cuh"
#include "kernel_id.h"
#include "kernel_table.h"

namespace ucmoh::tensorcore::measure {

template <typename Instr, int CTA_M, int CTA_N, int CTA_K, int STAGES, int WARPS_M, int WARPS_N, bool OPTIMIZED>
struct Instance {
  using Shape = ConvKernel<Instr, CTA_M, CTA_N, CTA_K, STAGES, WARPS_M, WARPS_N, OPTIMIZED>;

  static int Prepare() {
    return static_cast<int>(cudaFuncSetAttribute(
        ConvFprop<Instr, CTA_M, CTA_N, CTA_K, STAGES, WARPS_M, WARPS_N, OPTIMIZED>,
        cudaFuncAttributeMaxDynamicSharedMemorySize, Shape::kSharedBytes));
  }

  static int Launch(const ConvShape& shape, const void* x, const void* w, void* y) {
    const dim3 grid((shape.gemm_m() + CTA_M - 1) / CTA_M, (shape.k + CTA_N - 1) / CTA_N);
    ConvFprop<Instr, CTA_M, CTA_N, CTA_K, STAGES, WARPS_M, WARPS_N, OPTIMIZED>
        <<<grid, Shape::kThreads, Shape::kSharedBytes>>>(static_cast<const typename Instr::Element*>(x),
                                                         static_cast<const typename Instr::Element*>(w),
                                                         static_cast<typename Instr::Out*>(y), shape);
    return static_cast<int>(cudaGetLastError());
  }

  static KernelLauncher Make(const char* instruction) {
    KernelLauncher launcher;
    launcher.id = KernelId(instruction, CTA_M, CTA_N, CTA_K, STAGES, WARPS_M, WARPS_N, OPTIMIZED);
    launcher.threads = Shape::kThreads;
    launcher.shared_bytes = Shape::kSharedBytes;
    launcher.prepare = &Prepare;
    launcher.launch = &Launch;
    return launcher;
  }
};

template <typename This, typename Instr, int CTA_M, int CTA_N, int CTA_K, int STAGES, int WARPS_M, int WARPS_N>
void AddIfThis(std::vector<KernelLauncher>& table, const char* instruction) {
  if constexpr (std::is_same_v<This, Instr>) {
    table.push_back(Instance<Instr, CTA_M, CTA_N, CTA_K, STAGES, WARPS_M, WARPS_N, false>::Make(instruction));
    table.push_back(Instance<Instr, CTA_M, CTA_N, CTA_K, STAGES, WARPS_M, WARPS_N, true>::Make(instruction));
  }
}

}  // namespace ucmoh::tensorcore::measure

#define UCMOH_CONCAT_INNER(a, b) a##b
#define UCMOH_CONCAT(a, b) UCMOH_CONCAT_INNER(a, b)
#define UCMOH_MEASURED_KERNEL(instr, cta_m, cta_n, cta_k, stages, warps_m, warps_n)                        \
  AddIfThis<UCMOH_CONCAT(UCMOH_THIS_INSTRUCTION, _t), instr##_t, cta_m, cta_n, cta_k, stages, warps_m, warps_n>( \
      table, #instr);
