// The program AST every plugin lowers to: nested loops with load, compute and
// store stages at the leaves. It describes the program that was (or would be)
// run, so the features computed from it are honest. docs/features.md explains
// how each field becomes token dimensions.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ucmoh/status.h"

namespace ucmoh {

enum class LoopKind {
  kSerial,
  kParallel,      // CPU threads
  kVectorized,    // SIMD lanes
  kUnrolled,
  kGpuGrid,       // thread blocks
  kGpuBlock,      // threads of a block, when not split into warps below
  kGpuWarp,       // warps of a block
  kGpuThread,     // lanes of a warp
  kPipelined,     // software-pipelined (multi-stage) loop
};
constexpr int kNumLoopKinds = 9;

enum class StageKind { kLoad, kCompute, kStore };

// Where a buffer tile lives. CPU: kGlobal = main memory, kCache = a packed
// panel sized to stay in a cache level. GPU: kGlobal = device memory,
// kShared = shared memory.
enum class MemScope { kGlobal, kShared, kCache, kRegister };
constexpr int kNumMemScopes = 4;

// Plugins fill this many dimensions for each stage token with target-specific
// meaning (their "feature template"); core gives them to the model as they are.
constexpr int kTemplateDims = 8;
using TemplateValues = std::array<float, kTemplateDims>;

// The program-level facts a plugin computes its template values from
// (TargetPlugin::StageTemplate), by the names its TemplateInputNames() lists:
// "k_unroll", "pipeline_stages", ... Integers are held exactly.
using TemplateInputs = std::map<std::string, double>;

// A buffer the program reads or writes. Element types use the project's short
// names (f32, f16, bf16, tf32, s8, u8, s32, ...; docs/ast-json.md).
struct Buffer {
  std::string name;            // what stages name in Stage::buffer
  std::vector<int64_t> shape;  // extents, outermost first
  std::string dtype;
  MemScope scope = MemScope::kGlobal;  // where the whole buffer lives
};

struct Stage {
  StageKind kind = StageKind::kCompute;
  std::string name;            // "load_A_shared", "mma", "store_C", ...

  // Load and store stages: one execution moves one tile.
  std::string buffer;          // "A", "B", "C"
  MemScope src = MemScope::kGlobal;
  MemScope dst = MemScope::kRegister;
  double bytes = 0;            // bytes moved per execution
  double unique_bytes = 0;     // distinct bytes touched per execution
  double element_stride = 1;   // stride between consecutive elements, in elements
  double vector_bytes = 0;     // bytes per memory instruction
  double reuse = 1;            // how many compute uses each loaded byte gets
  // Per enclosing loop, outermost first: bytes the accessed tile moves when
  // that loop advances by one (0: the loop does not move it, so the data is
  // reused across it). Empty when the lowering does not know (schema 3's
  // loop-nest dimensions are then 0).
  std::vector<double> loop_stride_bytes;

  // Compute stages: one execution issues `intrinsic_calls` calls.
  double intrinsic_calls = 0;
  double flops_per_call = 0;   // 2 * m * n * k of the intrinsic, usually

  TemplateValues template_values{};  // plugin-defined, see the plugin's docs
};

struct Loop {
  std::string var;             // "i_outer", "k_tile", "blockIdx.x", ...
  int64_t extent = 1;
  LoopKind kind = LoopKind::kSerial;
};

// A node is either a loop with children or a stage leaf.
struct AstNode {
  bool is_loop = false;
  Loop loop;
  Stage stage;
  std::vector<AstNode> children;

  static AstNode MakeLoop(std::string var, int64_t extent, LoopKind kind,
                          std::vector<AstNode> body);
  static AstNode MakeStage(Stage stage);
};

struct ProgramAst {
  std::vector<AstNode> roots;
  std::vector<Buffer> buffers;     // every buffer a load or store stage names
  TemplateInputs template_inputs;  // what the stages' template values were computed from
};

const char* LoopKindName(LoopKind kind);
const char* StageKindName(StageKind kind);
const char* MemScopeName(MemScope scope);

// The inverses of the names above (NotFound lists the known names).
// ParseMemScope also takes "local" (TVM's name for thread-local registers).
Expected<LoopKind> ParseLoopKind(const std::string& name);
Expected<StageKind> ParseStageKind(const std::string& name);
Expected<MemScope> ParseMemScope(const std::string& name);

// A readable indented dump, one line per loop or stage (for `features --ast`).
std::string DumpAst(const ProgramAst& ast);

}  // namespace ucmoh
