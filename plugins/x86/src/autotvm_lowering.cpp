#include "ucmoh/x86/autotvm_lowering.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "ucmoh/cpu_gemm/gemm_template.h"

namespace ucmoh::x86 {

namespace {

using cpu_gemm::IsaProfile;

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// TVM's `auto_unroll_max_step` (batch_matmul sets 16): a loop is unrolled
// when its extent times the unrolled steps inside it stays within the limit.
constexpr int64_t kAutoUnrollMaxStep = 16;

class AutoTvmLowering {
 public:
  AutoTvmLowering(const AutoTvmProgram& program, const IsaProfile& profile, TemplateValues values)
      : p_(program), isa_(profile), template_(values) {}

  ProgramAst Lower(TemplateInputs inputs) const {
    ProgramAst ast;
    switch (p_.kind) {
      case AutoTvmTemplate::kDensePack: ast.roots = Parallel(p_.tile_x[0] * p_.tile_y[0], DensePackTiles()); break;
      case AutoTvmTemplate::kDenseNopack: ast.roots = Parallel(p_.tile_y[0] * p_.tile_x[0], DenseNopackTile()); break;
      case AutoTvmTemplate::kBatchMatmul:
        ast.roots = Parallel(p_.problem.batch * p_.tile_y[0] * p_.tile_x[0], BatchMatmulTile());
        break;
    }
    ast.buffers = Buffers();
    ast.template_inputs = std::move(inputs);
    return ast;
  }

 private:
  // TVM's parallel loop: its iterations split evenly over the thread pool.
  std::vector<AstNode> Parallel(int64_t iterations, std::vector<AstNode> body) const {
    const int64_t threads = std::min(p_.threads, iterations);
    AstNode per_thread = AstNode::MakeLoop("fused_outer", CeilDiv(iterations, threads), LoopKind::kSerial, std::move(body));
    return {AstNode::MakeLoop("thread", threads, LoopKind::kParallel, {std::move(per_thread)})};
  }

  // dense_pack: the (yo·xo) tiles of one parallel iteration; each runs the
  // whole k loop on yi x xi accumulators, then stores them.
  std::vector<AstNode> DensePackTiles() const {
    const int64_t yi = p_.tile_y[2], xi = p_.tile_x[2], ko = p_.tile_k[0], ki = p_.tile_k[1];
    std::vector<AstNode> step = {Load("load_A", "A", yi, 1, p_.problem.k, 1, Vectors(xi)),
                                 Load("load_B", "B", xi, 1, 1, xi, yi), Fma(yi, xi)};
    AstNode inner = AstNode::MakeLoop("k_inner", ki, LoopKind::kUnrolled, std::move(step));
    AstNode outer = AstNode::MakeLoop("k_outer", ko, LoopKind::kSerial, {std::move(inner)});
    AstNode tiles = AstNode::MakeLoop("xyo", p_.tile_y[1] * p_.tile_x[1], LoopKind::kSerial,
                                      {std::move(outer), StoreC(yi * xi, xi)});
    return {std::move(tiles)};
  }

  // dense_nopack: yi x xi accumulators of `vec` lanes each, summed across
  // their lanes at the end.
  std::vector<AstNode> DenseNopackTile() const {
    const int64_t yi = p_.tile_y[1], xi = p_.tile_x[1], ko = p_.tile_k[0], vec = p_.tile_k[1];
    std::vector<AstNode> step = {Load("load_A", "A", yi, vec, p_.problem.k, vec, xi),
                                 Load("load_B", "B", xi, vec, p_.problem.k, vec, yi), Fma(yi * xi, vec)};
    AstNode k_outer = AstNode::MakeLoop("k_outer", ko, LoopKind::kSerial, std::move(step));
    return {std::move(k_outer), ReduceLanes(yi * xi, vec), StoreC(yi * xi, 1)};
  }

  // batch_matmul: rfactor over ki, one accumulator of ki lanes per output.
  std::vector<AstNode> BatchMatmulTile() const {
    const int64_t yi = p_.tile_y[1], xi = p_.tile_x[1], ko = p_.tile_k[0], ki = p_.tile_k[1];
    std::vector<AstNode> step = {Load("load_A", "A", 1, ki, 1, ki, 1), Load("load_B", "B", 1, ki, 1, ki, 1), Fma(1, ki)};
    const bool unroll_k = ko <= kAutoUnrollMaxStep;
    const bool unroll_yx = unroll_k && yi * xi * ko <= kAutoUnrollMaxStep;
    AstNode k_outer = AstNode::MakeLoop("k_outer", ko, unroll_k ? LoopKind::kUnrolled : LoopKind::kSerial, std::move(step));
    AstNode yx = AstNode::MakeLoop("yx", yi * xi, unroll_yx ? LoopKind::kUnrolled : LoopKind::kSerial,
                                   {std::move(k_outer), ReduceLanes(1, ki)});
    return {std::move(yx), StoreC(yi * xi, 1)};
  }

  int64_t Vectors(int64_t width) const { return CeilDiv(width, isa_.lanes); }

  Stage Base(StageKind kind, std::string name, std::string buffer) const {
    Stage s;
    s.kind = kind;
    s.name = std::move(name);
    s.buffer = std::move(buffer);
    s.template_values = template_;
    return s;
  }

  // `rows` runs of `width` contiguous elements, rows `stride` elements apart,
  // read `vector_width` elements per instruction; each byte feeds `reuse` FMAs.
  AstNode Load(std::string name, std::string buffer, int64_t rows, int64_t width, int64_t stride,
               int64_t vector_width, int64_t reuse) const {
    Stage s = Base(StageKind::kLoad, std::move(name), std::move(buffer));
    s.src = MemScope::kGlobal;
    s.dst = MemScope::kRegister;
    s.bytes = static_cast<double>(rows * width * isa_.input_bytes);
    s.unique_bytes = s.bytes;
    s.element_stride = static_cast<double>(rows > 1 ? stride : 1);
    s.vector_bytes = static_cast<double>(std::min(vector_width, isa_.lanes) * isa_.input_bytes);
    s.reuse = static_cast<double>(reuse);
    return AstNode::MakeStage(std::move(s));
  }

  // `outputs` vector FMAs of `width` lanes each (several instructions when wider than a register).
  AstNode Fma(int64_t outputs, int64_t width) const { return VectorOp("compute_C", outputs, width, 2.0); }

  // The horizontal sum of each accumulator's `width` lanes (adds, no FMA).
  AstNode ReduceLanes(int64_t outputs, int64_t width) const { return VectorOp("reduce_lanes", outputs, width, 1.0); }

  AstNode VectorOp(std::string name, int64_t outputs, int64_t width, double flops_per_lane) const {
    Stage s = Base(StageKind::kCompute, std::move(name), "C");
    s.src = MemScope::kRegister;
    s.dst = MemScope::kRegister;
    s.intrinsic_calls = static_cast<double>(outputs * Vectors(width));
    s.flops_per_call = flops_per_lane * static_cast<double>(width) / static_cast<double>(Vectors(width));
    return AstNode::MakeStage(std::move(s));
  }

  AstNode StoreC(int64_t elements, int64_t vector_width) const {
    Stage s = Base(StageKind::kStore, "store_C", "C");
    s.src = MemScope::kRegister;
    s.dst = MemScope::kGlobal;
    s.bytes = static_cast<double>(elements * isa_.acc_bytes);
    s.unique_bytes = s.bytes;
    s.element_stride = static_cast<double>(p_.problem.n);
    s.vector_bytes = static_cast<double>(std::min(vector_width, isa_.lanes) * isa_.acc_bytes);
    return AstNode::MakeStage(std::move(s));
  }

  std::vector<Buffer> Buffers() const {
    const cpu_gemm::GemmProblem& g = p_.problem;
    const std::string t = isa_.input_type;
    if (p_.kind == AutoTvmTemplate::kBatchMatmul)
      return {Buffer{"A", {g.batch, g.m, g.k}, t}, Buffer{"B", {g.batch, g.n, g.k}, t},
              Buffer{"C", {g.batch, g.m, g.n}, isa_.accum_type}};
    // dense_pack tunes on the weight already packed into [N / xi][K][xi] panels.
    std::vector<int64_t> weight = p_.kind == AutoTvmTemplate::kDensePack
                                      ? std::vector<int64_t>{g.n / p_.tile_x[2], g.k, p_.tile_x[2]}
                                      : std::vector<int64_t>{g.n, g.k};
    return {Buffer{"A", {g.m, g.k}, t}, Buffer{"B", weight, t}, Buffer{"C", {g.m, g.n}, isa_.accum_type}};
  }

  const AutoTvmProgram& p_;
  const IsaProfile& isa_;
  TemplateValues template_;
};

// The cpu_gemm family's template inputs for what each template runs: its
// register tile, the block of tiles one parallel iteration covers, the
// unrolled k steps, and the threads that actually get work.
TemplateInputs InputsOf(const AutoTvmProgram& p, const IsaProfile& isa) {
  const int64_t k = p.problem.k;
  auto vectors = [&](int64_t width) { return static_cast<double>(CeilDiv(width, isa.lanes)); };
  auto d = [](int64_t x) { return static_cast<double>(x); };
  TemplateInputs in{{"pack_a", 0.0}, {"pack_b", 0.0}, {"kc", d(k)}};
  switch (p.kind) {
    case AutoTvmTemplate::kDensePack:
      in.insert({{"k_unroll", d(p.tile_k[1])}, {"mr", d(p.tile_y[2])}, {"nr_vec", vectors(p.tile_x[2])},
                 {"mc", d(p.tile_y[1] * p.tile_y[2])}, {"nc", d(p.tile_x[1] * p.tile_x[2])},
                 {"threads", d(std::min(p.threads, p.tile_x[0] * p.tile_y[0]))}});
      break;
    case AutoTvmTemplate::kDenseNopack:
      in.insert({{"k_unroll", 1.0}, {"mr", d(p.tile_y[1])}, {"nr_vec", d(p.tile_x[1]) * vectors(p.tile_k[1])},
                 {"mc", d(p.tile_y[1])}, {"nc", d(p.tile_x[1])},
                 {"threads", d(std::min(p.threads, p.tile_y[0] * p.tile_x[0]))}});
      break;
    case AutoTvmTemplate::kBatchMatmul:
      in.insert({{"k_unroll", d(p.tile_k[0] <= kAutoUnrollMaxStep ? p.tile_k[0] : 1)}, {"mr", 1.0},
                 {"nr_vec", vectors(p.tile_k[1])}, {"mc", d(p.tile_y[1])}, {"nc", d(p.tile_x[1])},
                 {"threads", d(std::min(p.threads, p.problem.batch * p.tile_y[0] * p.tile_x[0]))}});
      break;
  }
  return in;
}

}  // namespace

Expected<ProgramAst> LowerAutoTvm(const AutoTvmProgram& program, const IsaProfile& profile) {
  TemplateInputs inputs = InputsOf(program, profile);
  auto values = cpu_gemm::GemmTemplateValues(inputs, profile);
  if (!values.ok()) return values.status();
  return AutoTvmLowering(program, profile, *values).Lower(std::move(inputs));
}

}  // namespace ucmoh::x86
