// The kTemplateDims values the CPU GEMM family writes into every stage token:
// the schedule's choices expressed relative to the machine (register file,
// cache levels, cores), so one model can compare schedules across targets.
// They are computed from named template inputs (the schedule's blocking, in
// elements), so a program lowered here and a program given as an AST with the
// same inputs get the same values (docs/ast-json.md).
#pragma once

#include <string>
#include <vector>

#include "ucmoh/cpu_gemm/gemm_plan.h"
#include "ucmoh/program_ast.h"

namespace ucmoh::cpu_gemm {

// One short name per template dimension, in order (docs/cpu-gemm.md).
std::vector<std::string> GemmTemplateDimNames();

// The inputs the values are computed from: pack_a, pack_b (0/1), k_unroll,
// mr (rows of the register tile), nr_vec (its vectors), kc, mc, nc (cache
// blocks in elements, clipped to the problem) and threads.
std::vector<std::string> GemmTemplateInputNames();

// A plan's inputs. Block sizes are the effective ones (clipped to the
// problem), so a block larger than the problem reads as what runs.
TemplateInputs GemmTemplateInputs(const GemmPlan& plan);

// The values, all finite. Fails (InvalidArgument, naming the input) when an
// input is missing or out of range.
Expected<TemplateValues> GemmTemplateValues(const TemplateInputs& inputs, const IsaProfile& profile);

}  // namespace ucmoh::cpu_gemm
