// The i8816 kernels of measured_kernels.def (kernel_instances.cuh).
#define UCMOH_THIS_INSTRUCTION i8816
#include "kernel_instances.cuh"

namespace ucmoh::tensorcore::measure {

void AddKernels_i8816(std::vector<KernelLauncher>& table) {
#include "measured_kernels.def"
}

}  // namespace ucmoh::tensorcore::measure
