#include "ucmoh/cpu_gemm/gemm_lowering.h"

#include <string>
#include <utility>
#include <vector>

#include "ucmoh/cpu_gemm/gemm_template.h"

namespace ucmoh::cpu_gemm {

namespace {

// The block of each dimension whose loop encloses the current point of the nest.
struct OpenBlocks {
  int64_t m_units = 0;
  int64_t n_units = 0;
  int64_t k_units = 0;

  int64_t& of(GemmDim d) { return d == GemmDim::kM ? m_units : d == GemmDim::kN ? n_units : k_units; }
};

class GemmLowering {
 public:
  GemmLowering(const GemmPlan& plan, TemplateValues template_values)
      : plan_(plan), template_(template_values) {}

  ProgramAst Lower() const {
    std::vector<AstNode> body = BlockedLoops(0, OpenBlocks{});
    if (plan_.problem.batch > 1) {
      body = {AstNode::MakeLoop("batch", plan_.problem.batch, LoopKind::kSerial, std::move(body))};
    }
    ProgramAst ast;
    ast.roots.push_back(
        AstNode::MakeLoop("thread", plan_.schedule.threads, LoopKind::kParallel, std::move(body)));
    ast.buffers = Buffers();
    ast.template_inputs = GemmTemplateInputs(plan_);
    return ast;
  }

 private:
  // The blocked loop at `level` (one loop per run: full blocks, then the
  // tail), with its packing stages and everything inside.
  std::vector<AstNode> BlockedLoops(int level, OpenBlocks open) const {
    if (level == 3) return MicroKernel(open);
    const GemmDim dim = plan_.schedule.loop_order[static_cast<size_t>(level)];
    std::vector<AstNode> loops;
    for (const BlockRun& run : plan_.dim(dim).runs) {
      open.of(dim) = run.units;
      std::vector<AstNode> body;
      if (plan_.schedule.pack_a && level == plan_.PackALevel()) body.push_back(AstNode::MakeStage(PackA(open)));
      if (plan_.schedule.pack_b && level == plan_.PackBLevel()) body.push_back(AstNode::MakeStage(PackB(open)));
      for (AstNode& inner : BlockedLoops(level + 1, open)) body.push_back(std::move(inner));
      std::string var = std::string(1, DimLetter(dim)) + (run.is_tail ? "_block_tail" : "_block");
      loops.push_back(AstNode::MakeLoop(std::move(var), run.count, LoopKind::kSerial, std::move(body)));
    }
    return loops;
  }

  // C[m, n] += A[m, k] * B[k, n] (a leading batch extent when there is one).
  std::vector<Buffer> Buffers() const {
    const GemmProblem& g = plan_.problem;
    const IsaProfile& p = plan_.profile;
    auto shape = [&](int64_t rows, int64_t cols) {
      return g.batch > 1 ? std::vector<int64_t>{g.batch, rows, cols} : std::vector<int64_t>{rows, cols};
    };
    const bool mixed = p.input_type == "u8s8";  // VNNI: unsigned A, signed B
    return {Buffer{"A", shape(g.m, g.k), mixed ? "u8" : p.input_type, MemScope::kGlobal},
            Buffer{"B", shape(g.k, g.n), mixed ? "s8" : p.input_type, MemScope::kGlobal},
            Buffer{"C", shape(g.m, g.n), p.accum_type, MemScope::kGlobal}};
  }

  std::vector<AstNode> MicroKernel(const OpenBlocks& open) const {
    std::vector<AstNode> tile;
    tile.push_back(AstNode::MakeStage(LoadC(open)));
    for (AstNode& k_loop : KLoops(open.k_units)) tile.push_back(std::move(k_loop));
    tile.push_back(AstNode::MakeStage(StoreC()));
    AstNode m_tiles = AstNode::MakeLoop("m_tile", open.m_units, LoopKind::kSerial, std::move(tile));
    return {AstNode::MakeLoop("n_tile", open.n_units, LoopKind::kSerial, {std::move(m_tiles)})};
  }

  // The k-group steps of one kc block: whole unrolled bodies, then the rest.
  std::vector<AstNode> KLoops(int64_t steps) const {
    const int64_t unroll = plan_.schedule.k_unroll;
    std::vector<AstNode> loops;
    if (steps / unroll > 0) {
      AstNode unrolled = AstNode::MakeLoop("k_unroll", unroll, LoopKind::kUnrolled, KStepBody());
      loops.push_back(AstNode::MakeLoop("k_step", steps / unroll, LoopKind::kSerial, {std::move(unrolled)}));
    }
    if (steps % unroll > 0) {
      loops.push_back(AstNode::MakeLoop("k_rest", steps % unroll, LoopKind::kSerial, KStepBody()));
    }
    return loops;
  }

  std::vector<AstNode> KStepBody() const {
    return {AstNode::MakeStage(LoadA()), AstNode::MakeStage(LoadB()), AstNode::MakeStage(Compute())};
  }

  Stage BaseStage(StageKind kind, std::string name, std::string buffer) const {
    Stage s;
    s.kind = kind;
    s.name = std::move(name);
    s.buffer = std::move(buffer);
    s.template_values = template_;
    return s;
  }

  // A's mc x kc panel, reused by every n tile that runs while it is packed.
  Stage PackA(const OpenBlocks& open) const {
    const IsaProfile& p = plan_.profile;
    Stage s = BaseStage(StageKind::kLoad, "pack_A", "A");
    s.src = MemScope::kGlobal;
    s.dst = MemScope::kCache;
    s.bytes = static_cast<double>(open.m_units * plan_.schedule.mr * open.k_units * p.group_bytes());
    s.unique_bytes = s.bytes;
    s.element_stride = 1;  // the packing copy reads contiguous runs of each row
    s.vector_bytes = static_cast<double>(p.vector_bytes());
    const bool n_inside = plan_.LoopLevel(GemmDim::kN) > plan_.PackALevel();
    s.reuse = static_cast<double>(n_inside ? plan_.n.units_per_thread : open.n_units);
    return s;
  }

  // B's kc x nc panel, reused by every m tile that runs while it is packed.
  Stage PackB(const OpenBlocks& open) const {
    const IsaProfile& p = plan_.profile;
    Stage s = BaseStage(StageKind::kLoad, "pack_B", "B");
    s.src = MemScope::kGlobal;
    s.dst = MemScope::kCache;
    s.bytes = static_cast<double>(open.k_units * open.n_units * plan_.nr * p.group_bytes());
    s.unique_bytes = s.bytes;
    s.element_stride = 1;
    s.vector_bytes = static_cast<double>(p.vector_bytes());
    const bool m_inside = plan_.LoopLevel(GemmDim::kM) > plan_.PackBLevel();
    s.reuse = static_cast<double>(m_inside ? plan_.m.units_per_thread : open.m_units);
    return s;
  }

  // mr broadcasts of one k-group of A, each feeding nr_vec intrinsic calls.
  Stage LoadA() const {
    const IsaProfile& p = plan_.profile;
    Stage s = BaseStage(StageKind::kLoad, "load_A", "A");
    s.src = plan_.schedule.pack_a ? MemScope::kCache : MemScope::kGlobal;
    s.dst = MemScope::kRegister;
    s.bytes = static_cast<double>(plan_.schedule.mr * p.group_bytes());
    s.unique_bytes = s.bytes;
    // Packed: the mr x kc micro-panel is one stream. Unpacked: rows are lda apart.
    s.element_stride = plan_.schedule.pack_a ? 1.0 : static_cast<double>(plan_.k.padded_elements());
    s.vector_bytes = static_cast<double>(p.group_bytes());
    s.reuse = static_cast<double>(plan_.schedule.nr_vec);
    return s;
  }

  // nr_vec vector loads of one k-group row of B, each feeding mr intrinsic calls.
  Stage LoadB() const {
    const IsaProfile& p = plan_.profile;
    Stage s = BaseStage(StageKind::kLoad, "load_B", "B");
    s.src = plan_.schedule.pack_b ? MemScope::kCache : MemScope::kGlobal;
    s.dst = MemScope::kRegister;
    s.bytes = static_cast<double>(plan_.nr * p.group_bytes());
    s.unique_bytes = s.bytes;
    // Packed: the kc x nr micro-panel is one stream. Unpacked: k-group rows are N * kg apart.
    s.element_stride =
        plan_.schedule.pack_b ? 1.0 : static_cast<double>(plan_.problem.n * p.k_group);
    s.vector_bytes = static_cast<double>(p.vector_bytes());
    s.reuse = static_cast<double>(plan_.schedule.mr);
    return s;
  }

  Stage Compute() const {
    const IsaProfile& p = plan_.profile;
    Stage s = BaseStage(StageKind::kCompute, "compute_C", "C");
    s.src = MemScope::kRegister;
    s.dst = MemScope::kRegister;
    s.intrinsic_calls = static_cast<double>(plan_.schedule.mr * plan_.schedule.nr_vec);
    s.flops_per_call = static_cast<double>(2 * p.lanes * p.k_group);
    return s;
  }

  // The C tile enters the accumulators once per kc block and takes one
  // accumulation per k-group step of it.
  Stage LoadC(const OpenBlocks& open) const {
    Stage s = CTile(StageKind::kLoad, "load_C");
    s.src = MemScope::kGlobal;
    s.dst = MemScope::kRegister;
    s.reuse = static_cast<double>(open.k_units);
    return s;
  }

  Stage StoreC() const {
    Stage s = CTile(StageKind::kStore, "store_C");
    s.src = MemScope::kRegister;
    s.dst = MemScope::kGlobal;
    s.reuse = 1;
    return s;
  }

  Stage CTile(StageKind kind, std::string name) const {
    const IsaProfile& p = plan_.profile;
    Stage s = BaseStage(kind, std::move(name), "C");
    s.bytes = static_cast<double>(plan_.schedule.mr * plan_.nr * p.acc_bytes);
    s.unique_bytes = s.bytes;
    s.element_stride = static_cast<double>(plan_.problem.n);  // rows of C are ldc = N apart
    s.vector_bytes = static_cast<double>(p.vector_bytes());
    return s;
  }

  const GemmPlan& plan_;
  TemplateValues template_;
};

}  // namespace

Expected<ProgramAst> LowerGemm(const GemmPlan& plan) {
  auto values = GemmTemplateValues(GemmTemplateInputs(plan), plan.profile);
  if (!values.ok()) return values.status();
  return GemmLowering(plan, *values).Lower();
}

}  // namespace ucmoh::cpu_gemm
