// Lowers a toyaccel GEMM schedule to the AST of what the accelerator runs:
//
//   m_outer x n_outer (or n_outer x m_outer)       tiles of C, serial
//     k_outer                                      pipelined when double-buffered
//       load_A, load_B   global -> scratchpad      one DMA transfer per tile
//       n_block x k_block                          16x16 weights held stationary
//         mac            tile_m/16 calls           A blocks stream through the array
//     store_C            scratchpad -> global      s32 accumulators
//
// Edge tiles are padded (the array always computes whole 16x16x16 blocks), so
// the loop extents and pe_utilization describe the padded work honestly.
#include <cmath>

#include "toyaccel.h"

namespace toyaccel {

using ucmoh::AstNode;
using ucmoh::Expected;
using ucmoh::LoopKind;
using ucmoh::MemScope;
using ucmoh::ProgramAst;
using ucmoh::Stage;
using ucmoh::StageKind;
using ucmoh::Status;

namespace {

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
float Log2(double x) { return static_cast<float>(std::log2(x)); }

// Template values shared by every stage of one program; the per-stage ones
// (bursts, reuse, weight operand) are filled by the stage builders.
ucmoh::TemplateValues CommonTemplate(const Gemm& g, const Schedule& s) {
  double issued = static_cast<double>(CeilDiv(g.m, s.tile_m) * s.tile_m) *
                  static_cast<double>(CeilDiv(g.n, s.tile_n) * s.tile_n) *
                  static_cast<double>(CeilDiv(g.k, s.tile_k) * s.tile_k);
  ucmoh::TemplateValues t{};
  t[0] = static_cast<float>(ScratchpadBytes(s)) / kScratchpadBytes;  // scratchpad_fraction
  t[1] = s.double_buffer ? 1.f : 0.f;                               // double_buffered
  t[2] = static_cast<float>(static_cast<double>(g.m) * g.n * g.k / issued);  // pe_utilization
  t[6] = s.n_outer_first ? 1.f : 0.f;                               // n_outer_first
  t[7] = Log2(static_cast<double>(s.tile_k) / kArray);              // k_steps_log2
  return t;
}

Stage Transfer(StageKind kind, const char* name, const char* buffer, MemScope src, MemScope dst,
               double bytes, double reuse, bool weights, ucmoh::TemplateValues t) {
  Stage stage;
  stage.kind = kind;
  stage.name = name;
  stage.buffer = buffer;
  stage.src = src;
  stage.dst = dst;
  stage.bytes = bytes;
  stage.unique_bytes = bytes;     // tiles do not overlap
  stage.element_stride = 1;       // row-major tiles, rows copied whole
  stage.vector_bytes = kBurstBytes;
  stage.reuse = reuse;
  t[3] = Log2(1 + bytes / kBurstBytes);  // dma_bursts_log2
  t[4] = Log2(reuse);                    // reuse_log2
  t[5] = weights ? 1.f : 0.f;            // is_weight_operand
  stage.template_values = t;
  return stage;
}

Stage Mac(const Schedule& s, ucmoh::TemplateValues t) {
  Stage stage;
  stage.kind = StageKind::kCompute;
  stage.name = "mac";
  stage.intrinsic_calls = static_cast<double>(s.tile_m / kArray);
  stage.flops_per_call = 2.0 * kArray * kArray * kArray;
  t[4] = Log2(static_cast<double>(s.tile_m) / kArray);  // calls per stationary weight load
  stage.template_values = t;
  return stage;
}

AstNode KLoop(const Gemm& g, const Schedule& s, const ucmoh::TemplateValues& t) {
  double a_bytes = static_cast<double>(s.tile_m * s.tile_k);
  double b_bytes = static_cast<double>(s.tile_k * s.tile_n);
  AstNode load_a = AstNode::MakeStage(Transfer(StageKind::kLoad, "load_A_scratchpad", "A", MemScope::kGlobal,
                                               MemScope::kShared, a_bytes, double(s.tile_n / kArray), false, t));
  AstNode load_b = AstNode::MakeStage(Transfer(StageKind::kLoad, "load_B_scratchpad", "B", MemScope::kGlobal,
                                               MemScope::kShared, b_bytes, double(s.tile_m / kArray), true, t));
  AstNode blocks = AstNode::MakeLoop(
      "n_block", s.tile_n / kArray, LoopKind::kSerial,
      {AstNode::MakeLoop("k_block", s.tile_k / kArray, LoopKind::kUnrolled, {AstNode::MakeStage(Mac(s, t))})});
  LoopKind kind = s.double_buffer ? LoopKind::kPipelined : LoopKind::kSerial;
  return AstNode::MakeLoop("k_outer", CeilDiv(g.k, s.tile_k), kind, {load_a, load_b, blocks});
}

}  // namespace

Expected<ProgramAst> ToyAccelPlugin::Lower(const ucmoh::Task& task, const std::string& intrinsic,
                                           const ucmoh::ParamMap& params,
                                           const ucmoh::HardwareParams& hardware) const {
  if (intrinsic != kMac) return Status::NotFound("toyaccel has no intrinsic '" + intrinsic + "'");
  if (hardware.model != Target().hardware.model)
    return Status::InvalidArgument("toyaccel models only '" + Target().hardware.model + "', not '" +
                                   hardware.model + "'");
  auto gemm = ParseGemm(task);
  if (!gemm) return gemm.status();
  auto schedule = ParseSchedule(params);
  if (!schedule) return schedule.status();
  const Gemm& g = *gemm;
  const Schedule& s = *schedule;

  ucmoh::TemplateValues t = CommonTemplate(g, s);
  double c_bytes = static_cast<double>(s.tile_m * s.tile_n * kAccumBytes);
  AstNode store = AstNode::MakeStage(Transfer(StageKind::kStore, "store_C", "C", MemScope::kShared,
                                              MemScope::kGlobal, c_bytes, 1.0, false, t));
  std::vector<AstNode> tile_body = {KLoop(g, s, t), store};

  AstNode m_loop = AstNode::MakeLoop("m_outer", CeilDiv(g.m, s.tile_m), LoopKind::kSerial, {});
  AstNode n_loop = AstNode::MakeLoop("n_outer", CeilDiv(g.n, s.tile_n), LoopKind::kSerial, {});
  AstNode& outer = s.n_outer_first ? n_loop : m_loop;
  AstNode& inner = s.n_outer_first ? m_loop : n_loop;
  inner.children = std::move(tile_body);
  outer.children = {inner};

  ProgramAst ast;
  ast.roots.push_back(outer);
  return ast;
}

}  // namespace toyaccel
