// A program of this target: a conv2d problem, the mma instruction and the
// CUTLASS kernel configuration, checked to be a kernel CUTLASS could build
// and launch on the target GPU.
#pragma once

#include <string>

#include "conv_problem.h"
#include "intrinsics.h"
#include "kernel_config.h"
#include "kernel_resources.h"
#include "ucmoh/params.h"
#include "ucmoh/record.h"
#include "ucmoh/status.h"

namespace ucmoh::tensorcore {

struct TensorCoreProgram {
  const GpuArchitecture* arch = nullptr;
  ConvProblem problem;
  const TensorCoreIntrinsic* intrinsic = nullptr;
  KernelConfig config;
  KernelResources resources;
};

// Parses and validates for `arch`; every error message starts with the task key.
Expected<TensorCoreProgram> ResolveProgram(const Task& task, const std::string& intrinsic,
                                           const ParamMap& schedule, const GpuArchitecture& arch);

// The intrinsic and problem of a task, for callers without a schedule yet.
Expected<const TensorCoreIntrinsic*> ResolveIntrinsic(const Task& task, const std::string& intrinsic);
Expected<ConvProblem> ResolveProblem(const Task& task, const TensorCoreIntrinsic& intrinsic);

// The checks of ResolveProgram on already-parsed parts (no key prefix).
Status ValidateProgram(const ConvProblem& problem, const TensorCoreIntrinsic& intrinsic,
                       const KernelConfig& config, const KernelResources& resources, const GpuArchitecture& arch);

}  // namespace ucmoh::tensorcore
