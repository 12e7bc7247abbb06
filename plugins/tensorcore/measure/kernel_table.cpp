#include "kernel_table.h"

namespace ucmoh::tensorcore::measure {

const std::vector<KernelLauncher>& CompiledKernels() {
  static const std::vector<KernelLauncher> kTable = [] {
    std::vector<KernelLauncher> table;
    for (auto add : {AddKernels_h1688, AddKernels_s1688, AddKernels_i8816, AddKernels_h16816, AddKernels_s16816,
                     AddKernels_i16832})
      add(table);
    return table;
  }();
  return kTable;
}

const KernelLauncher* FindCompiledKernel(const std::string& id) {
  for (const KernelLauncher& kernel : CompiledKernels())
    if (kernel.id == id) return &kernel;
  return nullptr;
}

}  // namespace ucmoh::tensorcore::measure
