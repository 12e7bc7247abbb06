// Walks a lowered tensorcore AST for the tests: the flops its compute stages
// execute, its stages in tree order, a stage by name, and the loops on the
// way to a stage.
#pragma once

#include <string>
#include <vector>

#include "ucmoh/program_ast.h"

namespace ucmoh::testing {

// Sum over compute stages of calls x flops per call x the enclosing loop extents.
inline double ComputeFlops(const AstNode& node, double enclosing = 1) {
  if (!node.is_loop)
    return node.stage.kind == StageKind::kCompute
               ? node.stage.intrinsic_calls * node.stage.flops_per_call * enclosing
               : 0;
  double sum = 0;
  for (const AstNode& child : node.children)
    sum += ComputeFlops(child, enclosing * static_cast<double>(node.loop.extent));
  return sum;
}

inline double ComputeFlops(const ProgramAst& ast) {
  double sum = 0;
  for (const AstNode& root : ast.roots) sum += ComputeFlops(root);
  return sum;
}

inline void CollectStages(const AstNode& node, std::vector<const Stage*>& out) {
  if (!node.is_loop) {
    out.push_back(&node.stage);
    return;
  }
  for (const AstNode& child : node.children) CollectStages(child, out);
}

inline std::vector<const Stage*> Stages(const ProgramAst& ast) {
  std::vector<const Stage*> stages;
  for (const AstNode& root : ast.roots) CollectStages(root, stages);
  return stages;
}

inline const Stage* FindStage(const ProgramAst& ast, const std::string& name) {
  for (const Stage* stage : Stages(ast))
    if (stage->name == name) return stage;
  return nullptr;
}

// "name=extent" of every loop of a subtree, depth first ("block_tile=6272", "k_tile=18", ...).
inline void LoopPath(const AstNode& node, std::vector<std::string>& out) {
  if (!node.is_loop) return;
  out.push_back(node.loop.var + "=" + std::to_string(node.loop.extent));
  for (const AstNode& child : node.children) LoopPath(child, out);
}

}  // namespace ucmoh::testing
