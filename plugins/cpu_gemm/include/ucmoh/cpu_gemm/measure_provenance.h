// Where and how a CPU record was measured: CPU model and flags, the CPUs and
// cores used, compiler and flags, the kernel's compiler target and the date.
#pragma once

#include <string>
#include <vector>

#include "ucmoh/record.h"
#include "ucmoh/target.h"

namespace ucmoh::cpu_gemm {

// "gcc 12.2.0" or "clang 16.0.6", from the compiler that built the kernels.
std::string CompilerDescription();
// The C++ flags the runtime was built with (CMake's, for its build type).
std::string CompileFlags();
// Now, as ISO 8601 UTC ("2025-01-31T12:34:56Z").
std::string IsoDateUtc();

// `target` names the plugin ("x86", "arm"), `hardware` is the host's full
// reading, `kernel_target` the kernels' compiler target.
Provenance MeasuredProvenance(const std::string& target, const HardwareParams& hardware,
                              const std::string& kernel_target, int64_t threads, const std::vector<int>& cpus);

}  // namespace ucmoh::cpu_gemm
