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

// The template inputs (TemplateInputNames) of one program.
ucmoh::TemplateInputs InputsOf(const Gemm& g, const Schedule& s) {
  double issued = static_cast<double>(CeilDiv(g.m, s.tile_m) * s.tile_m) *
                  static_cast<double>(CeilDiv(g.n, s.tile_n) * s.tile_n) *
                  static_cast<double>(CeilDiv(g.k, s.tile_k) * s.tile_k);
  return {{"scratchpad_bytes", static_cast<double>(ScratchpadBytes(s))},
          {"double_buffered", s.double_buffer ? 1.0 : 0.0},
          {"pe_utilization", static_cast<double>(g.m) * g.n * g.k / issued},
          {"n_outer_first", s.n_outer_first ? 1.0 : 0.0},
          {"tile_k", static_cast<double>(s.tile_k)}};
}

Stage Transfer(StageKind kind, const char* name, const char* buffer, MemScope src, MemScope dst,
               double bytes, double reuse) {
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
  return stage;
}

Stage Mac(const Schedule& s) {
  Stage stage;
  stage.kind = StageKind::kCompute;
  stage.name = "mac";
  stage.intrinsic_calls = static_cast<double>(s.tile_m / kArray);
  stage.flops_per_call = 2.0 * kArray * kArray * kArray;
  return stage;
}

AstNode KLoop(const Gemm& g, const Schedule& s) {
  double a_bytes = static_cast<double>(s.tile_m * s.tile_k);
  double b_bytes = static_cast<double>(s.tile_k * s.tile_n);
  AstNode load_a = AstNode::MakeStage(Transfer(StageKind::kLoad, "load_A_scratchpad", "A", MemScope::kGlobal,
                                               MemScope::kShared, a_bytes, double(s.tile_n / kArray)));
  AstNode load_b = AstNode::MakeStage(Transfer(StageKind::kLoad, "load_B_scratchpad", "B", MemScope::kGlobal,
                                               MemScope::kShared, b_bytes, double(s.tile_m / kArray)));
  AstNode blocks = AstNode::MakeLoop(
      "n_block", s.tile_n / kArray, LoopKind::kSerial,
      {AstNode::MakeLoop("k_block", s.tile_k / kArray, LoopKind::kUnrolled, {AstNode::MakeStage(Mac(s))})});
  LoopKind kind = s.double_buffer ? LoopKind::kPipelined : LoopKind::kSerial;
  return AstNode::MakeLoop("k_outer", CeilDiv(g.k, s.tile_k), kind, {load_a, load_b, blocks});
}

ucmoh::Status FillTemplates(std::vector<AstNode>& nodes, const ucmoh::TemplateInputs& inputs) {
  for (AstNode& n : nodes) {
    if (n.is_loop) {
      UCMOH_RETURN_IF_ERROR(FillTemplates(n.children, inputs));
      continue;
    }
    auto values = StageTemplateValues(inputs, n.stage);
    if (!values) return values.status();
    n.stage.template_values = *values;
  }
  return Status::Ok();
}

}  // namespace

std::vector<std::string> TemplateInputNames() {
  return {"scratchpad_bytes", "double_buffered", "pe_utilization", "n_outer_first", "tile_k"};
}

// Program-wide values from the inputs; the stage's own from the stage (its
// bytes, reuse, operand), so a compiler's AST gets them as a lowered one does.
Expected<ucmoh::TemplateValues> StageTemplateValues(const ucmoh::TemplateInputs& inputs, const Stage& stage) {
  double in[5];
  const std::vector<std::string> names = TemplateInputNames();
  for (size_t i = 0; i < names.size(); ++i) {
    auto it = inputs.find(names[i]);
    if (it == inputs.end()) return Status::InvalidArgument("template input '" + names[i] + "' is missing");
    in[i] = it->second;
  }
  ucmoh::TemplateValues t{};
  t[0] = static_cast<float>(in[0]) / kScratchpadBytes;  // scratchpad_fraction
  t[1] = in[1] != 0 ? 1.f : 0.f;                        // double_buffered
  t[2] = static_cast<float>(in[2]);                     // pe_utilization
  t[6] = in[3] != 0 ? 1.f : 0.f;                        // n_outer_first
  t[7] = Log2(in[4] / kArray);                          // k_steps_log2
  if (stage.kind == StageKind::kCompute) {
    t[4] = Log2(stage.intrinsic_calls);  // calls per stationary weight load
    return t;
  }
  t[3] = Log2(1 + stage.bytes / kBurstBytes);  // dma_bursts_log2
  t[4] = Log2(stage.reuse);                    // reuse_log2
  t[5] = stage.buffer == "B" ? 1.f : 0.f;      // is_weight_operand
  return t;
}

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

  double c_bytes = static_cast<double>(s.tile_m * s.tile_n * kAccumBytes);
  AstNode store = AstNode::MakeStage(Transfer(StageKind::kStore, "store_C", "C", MemScope::kShared,
                                              MemScope::kGlobal, c_bytes, 1.0));
  std::vector<AstNode> tile_body = {KLoop(g, s), store};

  AstNode m_loop = AstNode::MakeLoop("m_outer", CeilDiv(g.m, s.tile_m), LoopKind::kSerial, {});
  AstNode n_loop = AstNode::MakeLoop("n_outer", CeilDiv(g.n, s.tile_n), LoopKind::kSerial, {});
  AstNode& outer = s.n_outer_first ? n_loop : m_loop;
  AstNode& inner = s.n_outer_first ? m_loop : n_loop;
  inner.children = std::move(tile_body);
  outer.children = {inner};

  ProgramAst ast;
  ast.roots.push_back(outer);
  ast.buffers = {{"A", {g.m, g.k}, "s8", MemScope::kGlobal},
                 {"B", {g.k, g.n}, "s8", MemScope::kGlobal},
                 {"C", {g.m, g.n}, "s32", MemScope::kGlobal}};
  ast.template_inputs = InputsOf(g, s);
  UCMOH_RETURN_IF_ERROR(FillTemplates(ast.roots, ast.template_inputs));
  return ast;
}

}  // namespace toyaccel
