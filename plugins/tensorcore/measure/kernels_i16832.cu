// The i16832 kernels of measured_kernels.def (kernel_instances.cuh).
#define UCMOH_THIS_INSTRUCTION i16832
#include "kernel_instances.cuh"

namespace ucmoh::tensorcore::measure {

void AddKernels_i16832(std::vector<KernelLauncher>& table) {
#include "measured_kernels.def"
}

}  // namespace ucmoh::tensorcore::measure
