// The s1688 kernels of measured_kernels.def (kernel_instances.cuh).
#define UCMOH_THIS_INSTRUCTION s1688
#include "kernel_instances.cuh"

namespace ucmoh::tensorcore::measure {

void AddKernels_s1688(std::vector<KernelLauncher>& table) {
#include "measured_kernels.def"
}

}  // namespace ucmoh::tensorcore::measure
