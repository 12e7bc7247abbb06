// Where and how an x86 record was measured: CPU model and flags, the CPUs and
// cores used, compiler and flags, the kernel's target attribute and the date.
#pragma once

#include <string>
#include <vector>

#include "ucmoh/record.h"
#include "ucmoh/target.h"

namespace ucmoh::x86 {

// "gcc 12.2.0" or "clang 16.0.6", from the compiler that built the kernels.
std::string CompilerDescription();
// The C++ flags the plugin was built with (CMake's, for its build type).
std::string CompileFlags();
// The per-function target attribute of an intrinsic's kernels ("avx512f,avx512vnni").
std::string KernelTargetAttribute(const std::string& intrinsic);
// Now, as ISO 8601 UTC ("2025-01-31T12:34:56Z").
std::string IsoDateUtc();

Provenance MeasuredProvenance(const HardwareParams& hardware, const std::string& intrinsic,
                              int64_t threads, const std::vector<int>& cpus);

}  // namespace ucmoh::x86
