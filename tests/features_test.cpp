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
