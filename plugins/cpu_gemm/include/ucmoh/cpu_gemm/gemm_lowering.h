// Lowers a planned GEMM to the program AST of exactly the driver that runs it
// (docs/cpu-gemm.md, "Lowering"):
//
//   parallel thread (threads)
//     [serial batch (batch), when batch > 1]
//       the three blocked loops in schedule order, each split into its full
//       blocks and its tail block; pack_A / pack_B (global -> cache) at the
//       start of the inner of the two loops each panel depends on
//         serial n_tile, serial m_tile                   (register tiles)
//           load_C (global -> register)
//           serial k_step { unrolled k_unroll { load_A, load_B, compute } }
//           serial k_rest { load_A, load_B, compute }      (steps % k_unroll)
//           store_C (register -> global)
//
// Every stage carries the plan's template values.
#pragma once

#include "ucmoh/cpu_gemm/gemm_plan.h"
#include "ucmoh/program_ast.h"

namespace ucmoh::cpu_gemm {

Expected<ProgramAst> LowerGemm(const GemmPlan& plan);

}  // namespace ucmoh::cpu_gemm
