// Lowers an AutoTVM x86 program to the AST of what TVM's schedule runs
// (docs/records.md, "AutoTVM logs", draws each nest):
//
//   dense_pack    parallel (tile_x[0]·tile_y[0] fused) { xyo (yo·xo) { k_outer { unrolled k_inner {
//                   load_A (yi broadcasts), load_B (xi lanes of the packed weight), FMA } } store_C } }
//   dense_nopack  parallel (yo·xo) { k_outer { load_A, load_B (yi and xi rows of `vec` lanes), FMA }
//                   reduce the `vec` lanes, store_C }
//   batch_matmul  parallel (b·yo·xo) { yx (yi·xi) { k_outer { load_A, load_B (ki lanes), FMA }
//                   reduce the ki lanes } store_C }
//
// The stages carry the cpu_gemm family's template values, computed from the
// same named inputs (register tile, cache blocks, unroll, threads), so one
// model compares these programs with cpu_gemm's.
#pragma once

#include "ucmoh/cpu_gemm/isa_profile.h"
#include "ucmoh/program_ast.h"
#include "ucmoh/x86/autotvm_templates.h"

namespace ucmoh::x86 {

Expected<ProgramAst> LowerAutoTvm(const AutoTvmProgram& program, const cpu_gemm::IsaProfile& profile);

}  // namespace ucmoh::x86
