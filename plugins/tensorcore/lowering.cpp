#include "lowering.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "hardware.h"

namespace ucmoh::tensorcore {

namespace {

double D(int64_t x) { return static_cast<double>(x); }

// The tensors behind the GEMM operands A, B and C (implicit_gemm.h), in that
// order. fprop keeps the operand names its ASTs always had; dgrad and wgrad
// name the gradient tensors they read and write.
std::vector<Buffer> ConvBuffers(const ConvProblem& p) {
  const std::vector<int64_t> nhwc = {p.n, p.h, p.w, p.c}, krsc = {p.k, p.r, p.s, p.c},
                             npqk = {p.n, p.p, p.q, p.k};
  switch (p.kind) {
    case ConvKind::kDgrad:
      return {Buffer{"dy", npqk, p.in_type, MemScope::kGlobal}, Buffer{"w", krsc, p.in_type, MemScope::kGlobal},
              Buffer{"dx", nhwc, p.out_type, MemScope::kGlobal}};
    case ConvKind::kWgrad:
      return {Buffer{"dy", npqk, p.in_type, MemScope::kGlobal}, Buffer{"x", nhwc, p.in_type, MemScope::kGlobal},
              Buffer{"dw", krsc, p.out_type, MemScope::kGlobal}};
    case ConvKind::kFprop:
      break;
  }
  return {Buffer{"A", nhwc, p.in_type, MemScope::kGlobal}, Buffer{"B", krsc, p.in_type, MemScope::kGlobal},
          Buffer{"C", npqk, p.out_type, MemScope::kGlobal}};
}

// Everything the stage builders need, computed once.
struct LoweringContext {
  const TensorCoreProgram& program;
  const KernelConfig& c;
  const IntrinsicInfo& inst;
  GemmTiling tiling;
  std::vector<Buffer> buffers;  // A, B, C (ConvBuffers)
  double in_bytes, acc_bytes, out_bytes;
  // Fractions of a tile that fall inside the problem (the rest is predicated off).
  double valid_m, valid_n, valid_k;
  TemplateValues template_values;

  const std::string& a() const { return buffers[0].name; }
  const std::string& b() const { return buffers[1].name; }
  const std::string& out() const { return buffers[2].name; }
};

LoweringContext MakeContext(const TensorCoreProgram& program) {
  const KernelConfig& c = program.config;
  const ConvProblem& p = program.problem;
  const ImplicitGemm gemm = MapToImplicitGemm(p);
  LoweringContext ctx{program, c, program.intrinsic->info, ComputeTiling(p, c), ConvBuffers(p),
                      0, 0, 0, 0, 0, 0, {}};
  ctx.in_bytes = TypeBits(p.in_type) / 8.0;
  ctx.acc_bytes = TypeBits(p.acc_type) / 8.0;
  ctx.out_bytes = TypeBits(p.out_type) / 8.0;
  ctx.valid_m = D(gemm.m) / D(ctx.tiling.tiles_m * c.cta_m);
  ctx.valid_n = D(gemm.n) / D(ctx.tiling.tiles_n * c.cta_n);
  ctx.valid_k = D(gemm.reduction_per_tap) / D(c.split_k_slices * ctx.tiling.k_tiles_per_filter_tap * c.cta_k);
  return ctx;
}

Stage MoveStage(const LoweringContext& ctx, StageKind kind, std::string name, std::string buffer,
                MemScope src, MemScope dst, double bytes, double valid_fraction,
                double vector_bytes, double reuse) {
  Stage stage;
  stage.kind = kind;
  stage.name = std::move(name);
  stage.buffer = std::move(buffer);
  stage.src = src;
  stage.dst = dst;
  stage.bytes = bytes;
  stage.unique_bytes = bytes * valid_fraction;
  stage.element_stride = 1;  // NHWC / KRSC / NPQK: channels are contiguous along every access
  stage.vector_bytes = vector_bytes;
  stage.reuse = reuse;
  stage.template_values = ctx.template_values;
  return stage;
}

AstNode Leaf(Stage stage) { return AstNode::MakeStage(std::move(stage)); }

// Global -> shared copies of one k tile, issued by the whole block; each
// element then feeds every mma along the other GEMM dimension of the block.
std::vector<AstNode> GlobalToSharedLoads(const LoweringContext& ctx) {
  const double vector = D(ctx.c.alignment) * ctx.in_bytes;
  return {
      Leaf(MoveStage(ctx, StageKind::kLoad, "load_A_shared", ctx.a(), MemScope::kGlobal, MemScope::kShared,
                     D(ctx.c.cta_m * ctx.c.cta_k) * ctx.in_bytes, ctx.valid_m * ctx.valid_k, vector,
                     D(ctx.c.cta_n) / D(ctx.inst.n))),
      Leaf(MoveStage(ctx, StageKind::kLoad, "load_B_shared", ctx.b(), MemScope::kGlobal, MemScope::kShared,
                     D(ctx.c.cta_n * ctx.c.cta_k) * ctx.in_bytes, ctx.valid_n * ctx.valid_k, vector,
                     D(ctx.c.cta_m) / D(ctx.inst.m))),
  };
}

// One instruction-k step of a warp: ldmatrix the A and B fragments of the warp
// tile (16 bytes per lane), then the grid of mma calls over the warp tile.
AstNode WarpMmaLoop(const LoweringContext& ctx) {
  const KernelConfig& c = ctx.c;
  const IntrinsicInfo& inst = ctx.inst;
  constexpr double kLdmatrixBytes = 16;
  Stage mma;
  mma.kind = StageKind::kCompute;
  mma.name = "mma";
  mma.intrinsic_calls = D((c.warp_m() / inst.m) * (c.warp_n() / inst.n));
  mma.flops_per_call = inst.ops_per_call;
  mma.template_values = ctx.template_values;
  std::vector<AstNode> body = {
      Leaf(MoveStage(ctx, StageKind::kLoad, "load_A_fragment", ctx.a(), MemScope::kShared,
                     MemScope::kRegister, D(c.warp_m() * inst.k) * ctx.in_bytes, 1, kLdmatrixBytes,
                     D(c.warp_n()) / D(inst.n))),
      Leaf(MoveStage(ctx, StageKind::kLoad, "load_B_fragment", ctx.b(), MemScope::kShared,
                     MemScope::kRegister, D(c.warp_n() * inst.k) * ctx.in_bytes, 1, kLdmatrixBytes,
                     D(c.warp_m()) / D(inst.m))),
      Leaf(std::move(mma)),
  };
  return AstNode::MakeLoop("k_inst", c.warp_k() / inst.k, LoopKind::kUnrolled, std::move(body));
}

// The pipelined main loop: `stages` k tiles are in flight in shared memory.
AstNode MainLoop(const LoweringContext& ctx, int64_t k_tiles) {
  std::vector<AstNode> body = GlobalToSharedLoads(ctx);
  body.push_back(AstNode::MakeLoop("warp", ctx.c.warps(), LoopKind::kGpuWarp, {WarpMmaLoop(ctx)}));
  return AstNode::MakeLoop("k_tile", k_tiles, LoopKind::kPipelined, std::move(body));
}

// The epilogue: warps that split K hand their partial sums to the first
// k-partition through shared memory; serial split-K slices after the first
// read the partial output back; then each output warp writes its C tile.
std::vector<AstNode> Epilogue(const LoweringContext& ctx) {
  const KernelConfig& c = ctx.c;
  const double warp_tile = D(c.warp_m() * c.warp_n());
  const double out_vector = std::min(D(kMaxVectorBytes), D(c.alignment) * ctx.out_bytes);
  const int64_t output_warps = c.warps_m * c.warps_n;
  std::vector<AstNode> nodes;
  if (c.warps_k > 1) {
    nodes.push_back(AstNode::MakeLoop(
        "warp", output_warps * (c.warps_k - 1), LoopKind::kGpuWarp,
        {Leaf(MoveStage(ctx, StageKind::kStore, "store_C_partial_shared", ctx.out(), MemScope::kRegister,
                        MemScope::kShared, warp_tile * ctx.acc_bytes, 1, kMaxVectorBytes, 1))}));
  }
  if (c.split_k_slices > 1) {
    const double later_slices = D(c.split_k_slices - 1) / D(c.split_k_slices);
    nodes.push_back(AstNode::MakeLoop(
        "warp", output_warps, LoopKind::kGpuWarp,
        {Leaf(MoveStage(ctx, StageKind::kLoad, "load_C_partial", ctx.out(), MemScope::kGlobal,
                        MemScope::kRegister, warp_tile * ctx.out_bytes * later_slices,
                        ctx.valid_m * ctx.valid_n, out_vector, 1))}));
  }
  nodes.push_back(AstNode::MakeLoop(
      "warp", output_warps, LoopKind::kGpuWarp,
      {Leaf(MoveStage(ctx, StageKind::kStore, "store_C", ctx.out(), MemScope::kRegister, MemScope::kGlobal,
                      warp_tile * ctx.out_bytes, ctx.valid_m * ctx.valid_n, out_vector, 1))}));
  return nodes;
}

float Log2(double x) { return static_cast<float>(std::log2(std::max(1.0, x))); }

// One grid of blocks: the main loop (absent where a strided-dgrad phase has
// no filter tap) and the epilogue, under the serial split-K slices.
AstNode BlockGrid(const LoweringContext& ctx, const BlockGroup& group) {
  std::vector<AstNode> block_body;
  if (group.k_tiles > 0) block_body.push_back(MainLoop(ctx, group.k_tiles));
  for (AstNode& node : Epilogue(ctx)) block_body.push_back(std::move(node));
  AstNode blocks = AstNode::MakeLoop("block_tile", group.blocks, LoopKind::kGpuGrid, {});
  if (ctx.c.split_k_slices > 1) {
    blocks.children.push_back(AstNode::MakeLoop("split_k_slice", ctx.c.split_k_slices,
                                                LoopKind::kGpuGrid, std::move(block_body)));
  } else {
    blocks.children = std::move(block_body);
  }
  return blocks;
}

}  // namespace

std::vector<std::string> TemplateDimNames() {
  return {"log2_pipeline_stages",   "log2_alignment",        "iterator_optimized",
          "shared_bytes_per_sm_fraction", "log2_resident_blocks_per_sm",
          "log2_warp_tile_m",       "log2_warp_tile_n",      "log2_split_k_slices"};
}

std::vector<std::string> TemplateInputNames() {
  return {"pipeline_stages", "alignment",      "iterator_optimized",   "warp_tile_m", "warp_tile_n",
          "split_k_slices",  "threads_per_block", "shared_bytes",      "registers_per_thread"};
}

TemplateInputs KernelTemplateInputs(const TensorCoreProgram& program) {
  const KernelConfig& c = program.config;
  const KernelResources& res = program.resources;
  return {{"pipeline_stages", D(c.stages)},        {"alignment", D(c.alignment)},
          {"iterator_optimized", c.optimized_iterator ? 1.0 : 0.0},
          {"warp_tile_m", D(c.warp_m())},          {"warp_tile_n", D(c.warp_n())},
          {"split_k_slices", D(c.split_k_slices)}, {"threads_per_block", D(res.threads)},
          {"shared_bytes", D(res.shared_bytes)},   {"registers_per_thread", D(res.registers_per_thread)}};
}

Expected<TemplateValues> KernelTemplateValues(const TemplateInputs& inputs, const GpuArchitecture& arch) {
  // In TemplateInputNames() order; read without allocating (called per stage).
  static const char* const kNames[] = {"pipeline_stages", "alignment",         "iterator_optimized",
                                       "warp_tile_m",     "warp_tile_n",       "split_k_slices",
                                       "threads_per_block", "shared_bytes",    "registers_per_thread"};
  double v[9];
  for (int n = 0; n < 9; ++n) {
    auto it = inputs.find(kNames[n]);
    if (it == inputs.end()) return Status::InvalidArgument(std::string("template input '") + kNames[n] + "' is missing");
    const double min = n == 2 || n == 7 ? 0 : 1;  // iterator_optimized and shared_bytes may be 0
    if (!std::isfinite(it->second) || it->second < min || it->second != std::floor(it->second))
      return Status::InvalidArgument(std::string("template input '") + kNames[n] + "' must be an integer >= " +
                                     std::to_string(static_cast<int>(min)));
    v[n] = it->second;
  }
  const auto [stages, alignment, iterator, warp_m, warp_n, split_k, threads, shared, registers] = v;
  const int64_t resident = ResidentBlocks(static_cast<int64_t>(threads), static_cast<int64_t>(shared),
                                          static_cast<int64_t>(registers), arch);
  return TemplateValues{Log2(stages),          Log2(alignment), iterator != 0 ? 1.f : 0.f,
                        static_cast<float>(shared / D(arch.shared_bytes_per_sm)), Log2(D(resident)),
                        Log2(warp_m),          Log2(warp_n),    Log2(split_k)};
}

Expected<ProgramAst> LowerProgram(const TensorCoreProgram& program) {
  const TemplateInputs inputs = KernelTemplateInputs(program);
  auto values = KernelTemplateValues(inputs, *program.arch);
  if (!values.ok()) return values.status();
  LoweringContext ctx = MakeContext(program);
  ctx.template_values = *values;
  ProgramAst ast;
  for (const BlockGroup& group : ctx.tiling.groups) ast.roots.push_back(BlockGrid(ctx, group));
  ast.buffers = ctx.buffers;
  ast.template_inputs = inputs;
  return ast;
}

}  // namespace ucmoh::tensorcore
