// Lowers a validated program to the AST of the CUTLASS implicit-GEMM kernel
// that runs it (docs/tensorcore.md draws the tree); implicit_gemm.h maps each
// conv kind to its GEMM.
#pragma once

#include <string>
#include <vector>

#include "implicit_gemm.h"
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
Expected<TemplateValues> KernelTemplateValues(const TemplateInputs& inputs, const GpuArchitecture& arch);

}  // namespace ucmoh::tensorcore
