// The name of one compiled kernel, shared by the plan (CPU) and the kernel
// table (GPU): "s16816_128x128_32x3_w2x2_optimized".
#pragma once

#include <string>

namespace ucmoh::tensorcore::measure {

inline std::string KernelId(const std::string& instruction, int cta_m, int cta_n, int cta_k, int stages,
                            int warps_m, int warps_n, bool optimized) {
  return instruction + "_" + std::to_string(cta_m) + "x" + std::to_string(cta_n) + "_" + std::to_string(cta_k) +
         "x" + std::to_string(stages) + "_w" + std::to_string(warps_m) + "x" + std::to_string(warps_n) + "_" +
         (optimized ? "optimized" : "analytic");
}

}  // namespace ucmoh::tensorcore::measure
