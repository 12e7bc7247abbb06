#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "ucmoh/features.h"

namespace ucmoh {
namespace {

int Column(const std::string& name) {
  const auto& schema = FeatureSchema();
  for (size_t i = 0; i < schema.size(); ++i)
    if (schema[i].name == name) return static_cast<int>(i);
  ADD_FAILURE() << "no feature named " << name;
  return 0;
}

// A tiny CPU GEMM: parallel(2) x serial(4) x { load A, compute, store C }.
ProgramAst TinyGemm() {
  Stage load;
  load.kind = StageKind::kLoad;
  load.name = "load_A";
  load.buffer = "A";
  load.src = MemScope::kGlobal;
  load.dst = MemScope::kRegister;
  load.bytes = 256;
  load.unique_bytes = 256;
  load.vector_bytes = 64;
  load.reuse = 4;
  load.template_values[0] = 0.5f;
  Stage compute;
  compute.kind = StageKind::kCompute;
  compute.name = "fma";
  compute.intrinsic_calls = 8;
  compute.flops_per_call = 32;
  Stage store;
  store.kind = StageKind::kStore;
  store.name = "store_C";
  store.buffer = "C";
  store.src = MemScope::kRegister;
  store.dst = MemScope::kGlobal;
  store.bytes = 512;
  ProgramAst ast;
  ast.roots.push_back(AstNode::MakeLoop(
      "i", 2, LoopKind::kParallel,
      {AstNode::MakeLoop("k", 4, LoopKind::kSerial,
                         {AstNode::MakeStage(load), AstNode::MakeStage(compute)}),
       AstNode::MakeStage(store)}));
  return ast;
}

TargetInfo Cpu() {
  TargetInfo t;
  t.name = "cpu";
  t.hardware.cores = 2;
  t.hardware.vector_bytes = 64;
  t.hardware.l1_bytes = 48 * 1024;
  return t;
}

IntrinsicInfo Fma() {
  return {"cpu.fma", "vfmadd231ps", 1, 16, 1, "f32", "f32", 32, ""};
}

TEST(FeatureSchema, HasOneNamedDimPerColumn) {
  ASSERT_EQ(FeatureSchema().size(), static_cast<size_t>(kFeatureDim));
  std::set<std::string> names;
  for (const auto& d : FeatureSchema()) {
    EXPECT_FALSE(d.description.empty()) << d.name;
    EXPECT_TRUE(names.insert(d.name).second) << "duplicate " << d.name;
  }
}

TEST(Featurize, OneTokenPerStagePlusTargetAndIntrinsic) {
  auto m = Featurize(TinyGemm(), Cpu().hardware, Fma());
  ASSERT_TRUE(m.ok()) << m.status().message();
  ASSERT_EQ(m->num_tokens, 5);
  ASSERT_EQ(m->values.size(), 5u * kFeatureDim);
  EXPECT_EQ(m->row(0)[Column("tok_target")], 1.f);
  EXPECT_EQ(m->row(1)[Column("tok_intrinsic")], 1.f);
  EXPECT_EQ(m->row(2)[Column("tok_load")], 1.f);
  EXPECT_EQ(m->row(3)[Column("tok_compute")], 1.f);
  EXPECT_EQ(m->row(4)[Column("tok_store")], 1.f);
  for (float v : m->values) EXPECT_TRUE(std::isfinite(v));
}

TEST(Featurize, ValuesAreLogScaledFromTheAst) {
  auto m = Featurize(TinyGemm(), Cpu().hardware, Fma());
  ASSERT_TRUE(m.ok());
  const float* load = m->row(2);
  EXPECT_FLOAT_EQ(load[Column("loop_parallel")], std::log2(3.f));
  EXPECT_FLOAT_EQ(load[Column("loop_serial")], std::log2(5.f));
  EXPECT_FLOAT_EQ(load[Column("loop_iterations")], std::log2(9.f));
  EXPECT_FLOAT_EQ(load[Column("mem_total_bytes")], std::log2(1.f + 256 * 8));
  EXPECT_EQ(load[Column("src_global")], 1.f);
  EXPECT_EQ(load[Column("dst_register")], 1.f);
  EXPECT_FLOAT_EQ(load[kGenericDims + 0], 0.5f);  // the plugin's template value passes through
  const float* compute = m->row(3);
  const double flops = 8.0 * 32 * 8;              // calls x flops/call x iterations
  EXPECT_FLOAT_EQ(compute[Column("total_flops")], static_cast<float>(std::log2(1 + flops)));
  EXPECT_FLOAT_EQ(compute[Column("arith_intensity")],
                  static_cast<float>(std::log2(1 + flops / (256.0 * 8))));
  const float* store = m->row(4);
  EXPECT_FLOAT_EQ(store[Column("loop_serial")], 0.f);  // the store is outside the k loop
  EXPECT_FLOAT_EQ(m->row(0)[Column("hw_cores")], std::log2(3.f));
  EXPECT_FLOAT_EQ(m->row(1)[Column("in_n")], std::log2(17.f));
}

// C[i, j] += A[i, k] * B[k, j], j one 16-float vector, M 8 x K 8 x N 16:
// parallel p(2) > serial k(8) > unrolled i(4) > { load A, load B, load C, fma, store C },
// with the bytes each loop moves each access (schema 3).
ProgramAst RegisterTiledGemm(bool with_strides) {
  auto access = [&](StageKind kind, const char* buffer, double bytes, std::vector<double> strides) {
    Stage s;
    s.kind = kind;
    s.buffer = buffer;
    s.src = kind == StageKind::kLoad ? MemScope::kGlobal : MemScope::kRegister;
    s.dst = kind == StageKind::kLoad ? MemScope::kRegister : MemScope::kGlobal;
    s.bytes = s.unique_bytes = bytes;
    if (with_strides) s.loop_stride_bytes = std::move(strides);
    return AstNode::MakeStage(s);
  };
  Stage fma;
  fma.intrinsic_calls = 1;
  fma.flops_per_call = 32;
  std::vector<AstNode> body = {access(StageKind::kLoad, "A", 4, {128, 4, 32}),
                               access(StageKind::kLoad, "B", 64, {0, 64, 0}),
                               access(StageKind::kLoad, "C", 64, {256, 0, 64}), AstNode::MakeStage(fma),
                               access(StageKind::kStore, "C", 64, {256, 0, 64})};
  ProgramAst ast;
  ast.roots.push_back(AstNode::MakeLoop(
      "p", 2, LoopKind::kParallel,
      {AstNode::MakeLoop("k", 8, LoopKind::kSerial, {AstNode::MakeLoop("i", 4, LoopKind::kUnrolled, body)})}));
  return ast;
}

TEST(Featurize, LoopNestDimsSayWhereEachAccessIsReused) {
  auto m = Featurize(RegisterTiledGemm(true), Cpu().hardware, Fma());
  ASSERT_TRUE(m.ok()) << m.status().message();
  const float *a = m->row(2), *b = m->row(3), *c = m->row(4), *fma = m->row(5);
  auto log2p = [](double x) { return static_cast<float>(std::log2(1 + x)); };
  // B does not move along i: reused 4 times, back to back; one i iteration touches A 4 + B 64 + C 64 + 64.
  EXPECT_FLOAT_EQ(b[Column("reuse_loop_extent")], log2p(4));
  EXPECT_FLOAT_EQ(b[Column("reuse_distance_iters")], log2p(1));
  EXPECT_FLOAT_EQ(b[Column("reuse_distance_bytes")], log2p(4 + 64 + 64 + 64));
  // C stays put along k: reused 8 times, 4 executions apart; a k iteration touches
  // A 4 x 4, B 64 and the 4 x 64-byte C tile, loaded and stored.
  EXPECT_FLOAT_EQ(c[Column("reuse_loop_extent")], log2p(8));
  EXPECT_FLOAT_EQ(c[Column("reuse_distance_iters")], log2p(4));
  EXPECT_FLOAT_EQ(c[Column("reuse_distance_bytes")], log2p(16 + 64 + 256 + 256));
  // A moves along every loop: no reuse; a thread touches its 4 x 8 block; i steps a row.
  EXPECT_EQ(a[Column("reuse_loop_extent")], 0.f);
  EXPECT_FLOAT_EQ(a[Column("footprint_per_thread")], log2p(4 * 8 * 4));
  EXPECT_FLOAT_EQ(a[Column("inner_stride_bytes")], log2p(32));
  EXPECT_FLOAT_EQ(b[Column("inner_stride_bytes")], log2p(64));
  EXPECT_EQ(a[Column("strides_known")], 1.f);
  EXPECT_EQ(fma[Column("strides_known")], 0.f);
  for (const float* row : {a, fma}) {
    EXPECT_FLOAT_EQ(row[Column("inner_loop_extent")], log2p(4));
    EXPECT_FLOAT_EQ(row[Column("unrolled_body")], log2p(4));
  }
}

TEST(Featurize, WithoutStridesTheReuseDimsAreZero) {
  auto m = Featurize(RegisterTiledGemm(false), Cpu().hardware, Fma());
  ASSERT_TRUE(m.ok()) << m.status().message();
  for (const char* dim : {"reuse_loop_extent", "reuse_distance_bytes", "footprint_per_thread", "strides_known"})
    EXPECT_EQ(m->row(3)[Column(dim)], 0.f) << dim;
  EXPECT_FLOAT_EQ(m->row(3)[Column("inner_loop_extent")], std::log2(5.f));  // from the loops alone
}

TEST(Featurize, RejectsEmptyAndNonFinitePrograms) {
  EXPECT_FALSE(Featurize(ProgramAst{}, Cpu().hardware, Fma()).ok());
  ProgramAst ast = TinyGemm();
  ast.roots[0].children[1].stage.template_values[3] = std::nanf("");
  auto m = Featurize(ast, Cpu().hardware, Fma());
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("template_3"), std::string::npos) << m.status().message();
}

}  // namespace
}  // namespace ucmoh
