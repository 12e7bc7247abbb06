#include "ucmoh/program_ast.h"

#include <sstream>

namespace ucmoh {

AstNode AstNode::MakeLoop(std::string var, int64_t extent, LoopKind kind,
                          std::vector<AstNode> body) {
  AstNode node;
  node.is_loop = true;
  node.loop = Loop{std::move(var), extent, kind};
  node.children = std::move(body);
  return node;
}

AstNode AstNode::MakeStage(Stage stage) {
  AstNode node;
  node.stage = std::move(stage);
  return node;
}

const char* LoopKindName(LoopKind kind) {
  switch (kind) {
    case LoopKind::kSerial: return "serial";
    case LoopKind::kParallel: return "parallel";
    case LoopKind::kVectorized: return "vectorized";
    case LoopKind::kUnrolled: return "unrolled";
    case LoopKind::kGpuGrid: return "gpu_grid";
    case LoopKind::kGpuBlock: return "gpu_block";
    case LoopKind::kGpuWarp: return "gpu_warp";
    case LoopKind::kGpuThread: return "gpu_thread";
    case LoopKind::kPipelined: return "pipelined";
  }
  return "?";
}

const char* StageKindName(StageKind kind) {
  switch (kind) {
    case StageKind::kLoad: return "load";
    case StageKind::kCompute: return "compute";
    case StageKind::kStore: return "store";
  }
  return "?";
}

const char* MemScopeName(MemScope scope) {
  switch (scope) {
    case MemScope::kGlobal: return "global";
    case MemScope::kShared: return "shared";
    case MemScope::kCache: return "cache";
    case MemScope::kRegister: return "register";
  }
  return "?";
}

namespace {

// The enum value whose name is `name`, or NotFound listing every name.
template <typename Enum, typename NameOf>
Expected<Enum> ParseName(const std::string& name, int count, NameOf name_of, const char* what) {
  std::string known;
  for (int i = 0; i < count; ++i) {
    const Enum value = static_cast<Enum>(i);
    if (name == name_of(value)) return value;
    known += std::string(known.empty() ? "" : ", ") + name_of(value);
  }
  return Status::NotFound("unknown " + std::string(what) + " '" + name + "' (known: " + known + ")");
}

void Dump(const AstNode& node, int depth, std::ostringstream& out) {
  out << std::string(static_cast<size_t>(depth) * 2, ' ');
  if (node.is_loop) {
    out << "for " << node.loop.var << " in " << node.loop.extent << " ("
        << LoopKindName(node.loop.kind) << ")\n";
    for (const auto& child : node.children) Dump(child, depth + 1, out);
    return;
  }
  const Stage& s = node.stage;
  out << StageKindName(s.kind) << ' ' << s.name;
  if (s.kind == StageKind::kCompute) {
    out << " calls=" << s.intrinsic_calls << " flops/call=" << s.flops_per_call;
  } else {
    out << ' ' << s.buffer << ' ' << MemScopeName(s.src) << "->" << MemScopeName(s.dst)
        << " bytes=" << s.bytes << " unique=" << s.unique_bytes << " stride=" << s.element_stride
        << " vec=" << s.vector_bytes << "B reuse=" << s.reuse;
    if (!s.loop_stride_bytes.empty()) {
      out << " loop_strides=";
      for (size_t i = 0; i < s.loop_stride_bytes.size(); ++i) out << (i ? "," : "") << s.loop_stride_bytes[i];
    }
  }
  out << '\n';
}
}  // namespace

Expected<LoopKind> ParseLoopKind(const std::string& name) {
  return ParseName<LoopKind>(name, kNumLoopKinds, LoopKindName, "loop kind");
}

Expected<StageKind> ParseStageKind(const std::string& name) {
  return ParseName<StageKind>(name, 3, StageKindName, "stage kind");
}

Expected<MemScope> ParseMemScope(const std::string& name) {
  if (name == "local") return MemScope::kRegister;
  return ParseName<MemScope>(name, kNumMemScopes, MemScopeName, "scope");
}

std::string DumpAst(const ProgramAst& ast) {
  std::ostringstream out;
  for (const auto& root : ast.roots) Dump(root, 0, out);
  return out.str();
}

}  // namespace ucmoh
