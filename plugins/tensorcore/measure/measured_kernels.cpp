#include "measured_kernels.h"

#include "kernel_id.h"

namespace ucmoh::tensorcore::measure {

namespace {

void Add(std::vector<MeasuredKernel>& kernels, const char* instruction, int cta_m, int cta_n, int cta_k, int stages,
         int warps_m, int warps_n) {
  const TensorCoreIntrinsic* intrinsic = FindIntrinsic(std::string("tensorcore.") + instruction);
  for (bool optimized : {false, true}) {  // CompiledKernels() order
    MeasuredKernel kernel;
    kernel.id = KernelId(instruction, cta_m, cta_n, cta_k, stages, warps_m, warps_n, optimized);
    kernel.intrinsic = intrinsic;
    KernelConfig& c = kernel.config;
    c.cta_m = cta_m;
    c.cta_n = cta_n;
    c.cta_k = cta_k;
    c.stages = stages;
    c.warps_m = warps_m;
    c.warps_n = warps_n;
    c.warps_k = 1;
    c.alignment = 16 / intrinsic->InputBytes();
    c.split_k_slices = 1;
    c.optimized_iterator = optimized;
    kernels.push_back(kernel);
  }
}

}  // namespace

const std::vector<MeasuredKernel>& MeasuredKernels() {
  static const std::vector<MeasuredKernel> kKernels = [] {
    std::vector<MeasuredKernel> kernels;
#define UCMOH_MEASURED_KERNEL(instr, cta_m, cta_n, cta_k, stages, warps_m, warps_n) \
  Add(kernels, #instr, cta_m, cta_n, cta_k, stages, warps_m, warps_n);
#include "measured_kernels.def"
#undef UCMOH_MEASURED_KERNEL
    return kernels;
  }();
  return kKernels;
}

}  // namespace ucmoh::tensorcore::measure
