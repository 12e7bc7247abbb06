// The kTemplateDims values the CPU GEMM family writes into every stage token:
// the schedule's choices expressed relative to the machine (register file,
// cache levels, cores), so one model can compare schedules across targets.
#pragma once

#include <string>
#include <vector>

#include "ucmoh/cpu_gemm/gemm_plan.h"
#include "ucmoh/program_ast.h"

namespace ucmoh::cpu_gemm {

// One short name per template dimension, in order (docs/cpu-gemm.md).
std::vector<std::string> GemmTemplateDimNames();

// The values for a plan, all finite. Block sizes are the effective ones
// (clipped to the problem), so a block larger than the problem reads as what runs.
TemplateValues GemmTemplateValues(const GemmPlan& plan);

}  // namespace ucmoh::cpu_gemm
