// The h16816 kernels of measured_kernels.def (kernel_instances.cuh).
#define UCMOH_THIS_INSTRUCTION h16816
#include "kernel_instances.cuh"

namespace ucmoh::tensorcore::measure {

void AddKernels_h16816(std::vector<KernelLauncher>& table) {
#include "measured_kernels.def"
}

}  // namespace ucmoh::tensorcore::measure
