// Lowers a validated program to the AST of the CUTLASS implicit-GEMM kernel
// that runs it (docs/tensorcore.md draws the tree).
#pragma once

#include <string>
#include <vector>

#include "program.h"
#include "ucmoh/program_ast.h"

namespace ucmoh::tensorcore {

Expected<ProgramAst> LowerProgram(const TensorCoreProgram& program);

// Names of the kTemplateDims values every stage carries, in order.
std::vector<std::string> TemplateDimNames();

// The template inputs of a program (docs/tensorcore.md): the kernel
// configuration and its resources, by the names TemplateInputNames lists.
std::vector<std::string> TemplateInputNames();
TemplateInputs KernelTemplateInputs(const TensorCoreProgram& program);

// The template values (kernel-wide, so every stage gets the same), from the
// inputs; fails naming a missing or out-of-range input.
Expected<TemplateValues> KernelTemplateValues(const TemplateInputs& inputs);

// Grid and k-loop sizes of the implicit GEMM, shared by the lowering and the tests.
struct GemmTiling {
  int64_t tiles_m = 1, tiles_n = 1;   // output tiles along M and N
  int64_t channels_per_slice = 1;     // ceil(c / split_k_slices)
  int64_t k_tiles_per_filter_tap = 1; // ceil(channels_per_slice / cta_k)
  int64_t k_tiles = 1;                // r * s * k_tiles_per_filter_tap: the pipelined loop
  // Flops the mma instructions execute, padding included.
  double PaddedFlops(const KernelConfig& c) const;
};

GemmTiling ComputeTiling(const ConvProblem& problem, const KernelConfig& config);

}  // namespace ucmoh::tensorcore
