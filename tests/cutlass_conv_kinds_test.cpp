// CUTLASS dgrad and wgrad kernels in the tensorcore plugin: profiler CSVs
// written here (the header read from the public files, rows spelled as
// CUTLASS's library generator names its kernels, documented ResNet-50 layer
// sizes) import to records of their own tasks and lower to the implicit GEMM
// of their kind; fprop records are exactly what they were before; bad rows
// stop the import with FILE:LINE; `registry import cutlass` takes them too.
// The runtimes in the rows are invented: only the mapping is under test.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "command_runner.h"
#include "operation_name.h"
#include "shared_data.h"
#include "tensorcore_ast_walk.h"
#include "tensorcore_plugin.h"
#include "ucmoh/ast_program.h"
#include "ucmoh/params.h"
#include "ucmoh/records_io.h"
#include "ucmoh/sha256.h"

namespace {

using namespace ucmoh;
using ucmoh::testing::ComputeFlops;
using ucmoh::testing::FindStage;
namespace fs = std::filesystem;

const tensorcore::TensorCorePlugin& Plugin() {
  static const tensorcore::TensorCorePlugin plugin;
  return plugin;
}

// The header line of a public profiler file (read in place, never copied).
std::string PublicHeader(const std::string& file) {
  std::ifstream in(ucmoh::testing::CutlassDataDir() + "/" + file);
  std::string header;
  std::getline(in, header);
  EXPECT_FALSE(header.empty()) << file << " is missing from the shared data folder";
  return header;
}

const char* const kF16File = "resnet50_cutlass_profiler_result.csv";                   // no Flops/Byte column
const char* const kF32AccFile = "resnet50_cutlass_profiler_result_fp16_fp32_accum.csv";  // with Flops/Byte

// A ResNet-50 conv layer at batch 256 (He et al. 2016, table 1; the plugin's suite).
struct Layer {
  int64_t hw, c, k, rs, stride, pad;
  int64_t pq() const { return (hw + 2 * pad - rs) / stride + 1; }
};
constexpr int64_t kBatch = 256;
constexpr Layer kConv2_3x3{56, 64, 64, 3, 1, 1};        // conv2_x 3x3, 64 -> 64
constexpr Layer kConv3_down{56, 256, 512, 1, 2, 0};     // conv3_1 projection shortcut, stride 2
constexpr Layer kConv5_expand{7, 512, 2048, 1, 1, 0};   // conv5_x 1x1, 512 -> 2048

// One profiler row: the kernel and the layer it ran.
struct KernelRow {
  std::string operation, kind;
  Layer layer{};
  std::string in = "f16", acc = "f32", out = "f32", iterator = "optimized";
  int64_t cta_m = 128, cta_n = 128, cta_k = 32, stages = 3, warps_m = 2, warps_n = 2, warps_k = 1;
  int64_t inst_m = 16, inst_n = 8, inst_k = 16, split_k = 1;
  std::string split_k_mode = "serial", disposition = "passed", status = "success", conv_kind;
};

KernelRow Row(const std::string& operation, const std::string& kind, const Layer& layer,
              const std::string& in = "f16", const std::string& acc = "f32", const std::string& out = "f32") {
  KernelRow row;
  row.operation = operation;
  row.kind = kind;
  row.layer = layer;
  row.in = in;
  row.acc = acc;
  row.out = out;
  return row;
}

// The profiler's Activation / Filter / Output columns are x, w and y: the one
// the kernel writes (y for fprop, dx for dgrad, dw for wgrad) carries the
// output type, the two it reads the input type.
std::string Tensor(const KernelRow& k, const std::string& tensor) {
  const std::string kind = k.conv_kind.empty() ? k.kind : k.conv_kind;
  const std::string written = kind == "dgrad" ? "x" : kind == "wgrad" ? "w" : "y";
  return (tensor == written ? k.out : k.in) + ":nhwc";
}

std::map<std::string, std::string> RowValues(const KernelRow& k) {
  const Layer& l = k.layer;
  const auto n = [](int64_t x) { return std::to_string(x); };
  return {{"Problem", "1"}, {"Provider", "CUTLASS"}, {"OperationKind", "conv2d"}, {"Operation", k.operation},
          {"Disposition", k.disposition}, {"Status", k.status},
          {"conv_kind", k.conv_kind.empty() ? k.kind : k.conv_kind}, {"n", n(kBatch)}, {"h", n(l.hw)},
          {"w", n(l.hw)}, {"c", n(l.c)}, {"k", n(l.k)}, {"r", n(l.rs)}, {"s", n(l.rs)}, {"p", n(l.pq())},
          {"q", n(l.pq())}, {"pad_h", n(l.pad)}, {"pad_w", n(l.pad)}, {"stride_h", n(l.stride)},
          {"stride_w", n(l.stride)}, {"dilation_h", "1"}, {"dilation_w", "1"}, {"Activation", Tensor(k, "x")},
          {"Filter", Tensor(k, "w")}, {"Output", Tensor(k, "y")}, {"conv_mode", "cross"},
          {"iterator_algorithm", k.iterator}, {"alpha", "1"}, {"beta", "0"}, {"split_k_mode", k.split_k_mode},
          {"split_k_slices", n(k.split_k)}, {"eq_gemm_provider", "none"}, {"op_class", "tensorop"},
          {"accum", k.acc}, {"cta_m", n(k.cta_m)}, {"cta_n", n(k.cta_n)}, {"cta_k", n(k.cta_k)},
          {"stages", n(k.stages)}, {"warps_m", n(k.warps_m)}, {"warps_n", n(k.warps_n)},
          {"warps_k", n(k.warps_k)}, {"inst_m", n(k.inst_m)}, {"inst_n", n(k.inst_n)}, {"inst_k", n(k.inst_k)},
          {"min_cc", "80"}, {"max_cc", "1024"}, {"Bytes", "1000000"}, {"Flops", "2000000000"},
          {"Flops/Byte", "2000"}, {"Runtime", "1.25"}, {"GB/s", "0.8"}, {"GFLOPs", "1600"}};
}

// The row in the header's column order; every column of the header gets a value.
std::string CsvLine(const std::string& header, const KernelRow& row) {
  const auto values = RowValues(row);
  std::string line, column;
  std::stringstream names(header);
  while (std::getline(names, column, ',')) {
    auto it = values.find(column);
    EXPECT_NE(it, values.end()) << "no value for column '" << column << "'";
    line += (line.empty() ? "" : ",") + (it == values.end() ? std::string("?") : it->second);
  }
  return line;
}

// s16816 (f16 in, f32 accumulate and out) dgrad kernels: a unity-stride one on
// a stride-1 layer, a strided one on a stride-2 layer, and the unity-stride
// one on the stride-2 layer, which CUTLASS refuses to run (skipped).
std::vector<KernelRow> DgradRows() {
  KernelRow unity =
      Row("cutlass_tensorop_s16816dgrad_optimized_f16_128x64_32x4_nhwc_unity_stride_align8", "dgrad", kConv2_3x3);
  unity.cta_n = 64;
  unity.stages = 4;
  KernelRow strided =
      Row("cutlass_tensorop_s16816dgrad_optimized_f16_128x128_32x3_nhwc_align8", "dgrad", kConv3_down);
  KernelRow refused = unity;
  refused.layer = kConv3_down;
  refused.disposition = "not_run";
  refused.status = "error_not_supported";
  return {unity, strided, refused};
}

// h16816 (f16 in, accumulate and out) wgrad kernels: an optimized one, and an
// analytic one with two serial split-K slices.
std::vector<KernelRow> WgradRows() {
  KernelRow optimized =
      Row("cutlass_tensorop_h16816wgrad_optimized_64x64_32x3_nhwc_align8", "wgrad", kConv2_3x3, "f16", "f16", "f16");
  optimized.cta_m = optimized.cta_n = 64;
  KernelRow split =
      Row("cutlass_tensorop_h16816wgrad_analytic_128x128_32x3_nhwc_align8", "wgrad", kConv5_expand, "f16", "f16",
          "f16");
  split.iterator = "analytic";
  split.split_k = 2;
  return {optimized, split};
}

int64_t Int(const ParamMap& params, const std::string& key) {
  auto value = GetInt(params, key);
  EXPECT_TRUE(value.ok()) << value.status().message();
  return value.ok() ? *value : 0;
}

std::string Str(const ParamMap& params, const std::string& key) {
  auto value = GetString(params, key);
  return value.ok() ? *value : "<" + key + " missing>";
}

ProgramAst Lower(const Record& r) {
  auto ast = Plugin().Lower(r.task, r.intrinsic, r.schedule, r.hardware);
  EXPECT_TRUE(ast.ok()) << r.task.key << ": " << ast.status().message();
  return ast.ok() ? *ast : ProgramAst{};
}

// "name[d0,d1,d2,d3]" of every buffer.
std::vector<std::string> BufferShapes(const ProgramAst& ast) {
  std::vector<std::string> out;
  for (const Buffer& b : ast.buffers) {
    std::string text = b.name + "[";
    for (size_t i = 0; i < b.shape.size(); ++i) text += (i ? "," : "") + std::to_string(b.shape[i]);
    out.push_back(text + "]");
  }
  return out;
}

std::vector<std::string> RootLoops(const ProgramAst& ast, size_t root) {
  std::vector<std::string> loops;
  if (root < ast.roots.size()) ucmoh::testing::LoopPath(ast.roots[root], loops);
  return loops;
}

class CutlassConvKinds : public ::testing::Test {
 protected:
  void SetUp() override {
    UCMOH_SKIP_WITHOUT_SHARED_DATA();
    dir_ = fs::temp_directory_path() / ("ucmoh_conv_kinds_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }

  std::string WriteCsv(const std::string& name, const std::string& header_file,
                       const std::vector<KernelRow>& rows) {
    const std::string header = PublicHeader(header_file);
    const std::string path = (dir_ / name).string();
    std::ofstream out(path);
    out << header << "\n";
    for (const KernelRow& row : rows) out << CsvLine(header, row) << "\n";
    return path;
  }

  std::vector<Record> Import(const std::string& path) {
    auto records = Plugin().Import("cutlass", path);
    EXPECT_TRUE(records.ok()) << records.status().message();
    return records.ok() ? *records : std::vector<Record>{};
  }

  fs::path dir_;
};

TEST_F(CutlassConvKinds, DgradRowsBecomeDgradTasks) {
  const auto records = Import(WriteCsv("dgrad.csv", kF32AccFile, DgradRows()));
  ASSERT_EQ(records.size(), 2u);  // the unity-stride kernel did not run on the stride-2 layer
  const Record& unity = records[0];
  EXPECT_EQ(unity.intrinsic, "tensorcore.s16816");
  EXPECT_EQ(unity.task.key, "resnet50.conv2d_dgrad.n256_h56_w56_c64_k64_r3_s3_p56_q56_pad1_str1.s16816");
  EXPECT_EQ(unity.task.op, "conv2d");
  EXPECT_EQ(Str(unity.task.workload, "conv_kind"), "dgrad");
  EXPECT_EQ(Str(unity.schedule, "operation"), DgradRows()[0].operation);
  EXPECT_EQ(Int(unity.schedule, "alignment"), 8);
  EXPECT_EQ(Int(unity.schedule, "stages"), 4);
  EXPECT_EQ(Str(unity.schedule, "iterator"), "optimized");
  EXPECT_EQ(Int(unity.provenance.details, "line"), 2);
  EXPECT_EQ(records[1].task.key, "resnet50.conv2d_dgrad.n256_h56_w56_c256_k512_r1_s1_p28_q28_pad0_str2.s16816");
  EXPECT_EQ(Int(records[1].provenance.details, "line"), 3);
}

// The typing of real CUTLASS 2.x conv profiler rows: the written tensor's
// column carries the output type. A tensorop_s* dgrad kernel prints
// "Activation f32:nhwc, Filter f16:nhwc, Output f16:nhwc"; its wgrad twin
// "Activation f16, Filter f32, Output f16". Spelled out here column by column
// rather than through Tensor(), so the test does not share the importer's rule.
TEST_F(CutlassConvKinds, GradientRowsAreTypedByTheTensorTheyWrite) {
  const std::string header = PublicHeader(kF32AccFile);
  auto with_types = [&](const KernelRow& row, const std::string& x, const std::string& w, const std::string& y) {
    auto values = RowValues(row);
    values["Activation"] = x + ":nhwc";
    values["Filter"] = w + ":nhwc";
    values["Output"] = y + ":nhwc";
    std::string out, name;
    std::stringstream names(header);
    while (std::getline(names, name, ',')) out += (out.empty() ? "" : ",") + values[name];
    return out;
  };
  const KernelRow dgrad = DgradRows()[0];
  KernelRow wgrad = dgrad;
  wgrad.operation = "cutlass_tensorop_s16816wgrad_optimized_f16_128x64_32x4_nhwc_align8";
  wgrad.kind = "wgrad";
  const std::string path = (dir_ / "real_typing.csv").string();
  std::ofstream(path) << header << "\n"
                      << with_types(dgrad, "f32", "f16", "f16") << "\n"
                      << with_types(wgrad, "f16", "f32", "f16") << "\n";
  const auto records = Import(path);
  ASSERT_EQ(records.size(), 2u);
  for (const Record& r : records) {
    EXPECT_EQ(r.intrinsic, "tensorcore.s16816") << r.task.key;
    EXPECT_EQ(Str(r.task.workload, "in_type"), "f16") << r.task.key;
    EXPECT_EQ(Str(r.task.workload, "out_type"), "f32") << r.task.key;
  }
  // Typed as an fprop row would be (Output f32), a dgrad row reads f32 dy and f16 w.
  const std::string wrong = (dir_ / "fprop_typed_dgrad.csv").string();
  std::ofstream(wrong) << header << "\n" << with_types(dgrad, "f16", "f16", "f32") << "\n";
  auto refused = Plugin().Import("cutlass", wrong);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find(
                "fprop_typed_dgrad.csv:2: a dgrad kernel reads Output (dy) f32 and Filter (w) f16: their types differ"),
            std::string::npos)
      << refused.status().message();
}

// dgrad: M = n*h*w, N = c, K = k*r*s; A is dy (NPQK), B the filter (KRSC), C is dx (NHWC).
TEST_F(CutlassConvKinds, DgradLowersToItsImplicitGemm) {
  const auto records = Import(WriteCsv("dgrad.csv", kF32AccFile, DgradRows()));
  ASSERT_EQ(records.size(), 2u);
  const ProgramAst unity = Lower(records[0]);
  EXPECT_EQ(BufferShapes(unity),
            (std::vector<std::string>{"dy[256,56,56,64]", "w[64,3,3,64]", "dx[256,56,56,64]"}));
  const int64_t m = 256 * 56 * 56, n = 64, k = 64 * 3 * 3;  // 802816 x 64 x 576
  // Tile 128x64x32: 6272 x 1 blocks; every one of the 9 taps walks 64 / 32 = 2 k tiles.
  ASSERT_EQ(unity.roots.size(), 1u);
  EXPECT_EQ(RootLoops(unity, 0), (std::vector<std::string>{"block_tile=6272", "k_tile=18", "warp=4", "k_inst=2",
                                                            "warp=4"}));
  EXPECT_DOUBLE_EQ(ComputeFlops(unity), 2.0 * m * n * k);  // the tiles divide the GEMM exactly
  EXPECT_EQ(FindStage(unity, "load_A_shared")->buffer, "dy");
  EXPECT_EQ(FindStage(unity, "load_B_fragment")->buffer, "w");
  EXPECT_EQ(FindStage(unity, "store_C")->buffer, "dx");
  EXPECT_EQ(FindStage(unity, "store_C")->vector_bytes, 16);  // min(16, 8 x 4-byte f32)
}

// Stride 2: CUTLASS's strided dgrad launches 4 filter phases of
// ceil(256*28*28 / 128) = 1568 x ceil(256 / 128) = 2 tiles; only phase (0,0)
// holds the 1x1 filter's tap (512 / 32 = 16 k tiles), the other 3 phases
// write their zero rows of dx with the epilogue alone. The mma work is then
// exactly the forward pass's 2*n*p*q*k*c, not 2*(n*h*w)*c*k.
TEST_F(CutlassConvKinds, StridedDgradRunsOnePhasePerFilterTap) {
  const auto records = Import(WriteCsv("dgrad.csv", kF32AccFile, DgradRows()));
  ASSERT_EQ(records.size(), 2u);
  const ProgramAst strided = Lower(records[1]);
  EXPECT_EQ(BufferShapes(strided),
            (std::vector<std::string>{"dy[256,28,28,512]", "w[512,1,1,256]", "dx[256,56,56,256]"}));
  ASSERT_EQ(strided.roots.size(), 2u);
  EXPECT_EQ(RootLoops(strided, 0), (std::vector<std::string>{"block_tile=3136", "k_tile=16", "warp=4", "k_inst=2",
                                                              "warp=4"}));
  EXPECT_EQ(RootLoops(strided, 1), (std::vector<std::string>{"block_tile=9408", "warp=4"}));
  EXPECT_DOUBLE_EQ(ComputeFlops(strided), 2.0 * (256 * 28 * 28) * 512 * 256);
}

// wgrad: M = k, N = c*r*s, K = n*p*q; A is dy (NPQK), B is x (NHWC), C is dw (KRSC).
TEST_F(CutlassConvKinds, WgradLowersToItsImplicitGemm) {
  const auto records = Import(WriteCsv("wgrad.csv", kF16File, WgradRows()));
  ASSERT_EQ(records.size(), 2u);
  const Record& optimized = records[0];
  EXPECT_EQ(optimized.intrinsic, "tensorcore.h16816");
  EXPECT_EQ(optimized.task.key, "resnet50.conv2d_wgrad.n256_h56_w56_c64_k64_r3_s3_p56_q56_pad1_str1.h16816");
  EXPECT_EQ(Str(optimized.task.workload, "conv_kind"), "wgrad");
  const ProgramAst ast = Lower(optimized);
  EXPECT_EQ(BufferShapes(ast), (std::vector<std::string>{"dy[256,56,56,64]", "x[256,56,56,64]", "dw[64,3,3,64]"}));
  // 64 x 576 x 802816 on 64x64x32 tiles: 1 x 9 blocks, 802816 / 32 = 25088 k tiles, no filter taps.
  EXPECT_EQ(RootLoops(ast, 0), (std::vector<std::string>{"block_tile=9", "k_tile=25088", "warp=4", "k_inst=2",
                                                          "warp=4"}));
  EXPECT_DOUBLE_EQ(ComputeFlops(ast), 2.0 * 64 * (64 * 3 * 3) * (256.0 * 56 * 56));
  EXPECT_EQ(FindStage(ast, "load_A_shared")->buffer, "dy");
  EXPECT_EQ(FindStage(ast, "load_B_shared")->buffer, "x");
  EXPECT_EQ(FindStage(ast, "store_C")->buffer, "dw");
}

// Serial split-K divides wgrad's n*p*q reduction; the analytic iterator shows
// in the template values.
TEST_F(CutlassConvKinds, WgradSplitKAndIteratorAreRead) {
  const auto records = Import(WriteCsv("wgrad.csv", kF16File, WgradRows()));
  ASSERT_EQ(records.size(), 2u);
  const Record& split = records[1];
  EXPECT_EQ(split.task.key, "resnet50.conv2d_wgrad.n256_h7_w7_c512_k2048_r1_s1_p7_q7_pad0_str1.h16816");
  EXPECT_EQ(Int(split.schedule, "split_k_slices"), 2);
  EXPECT_EQ(Str(split.schedule, "iterator"), "analytic");
  const ProgramAst ast = Lower(split);
  // 2048 x 512 x 12544 on 128x128x32 tiles: 16 x 4 blocks, 2 slices of 6272 -> 196 k tiles each.
  EXPECT_EQ(RootLoops(ast, 0), (std::vector<std::string>{"block_tile=64", "split_k_slice=2", "k_tile=196", "warp=4",
                                                          "k_inst=2", "warp=4", "warp=4"}));
  EXPECT_DOUBLE_EQ(ComputeFlops(ast), 2.0 * 2048 * 512 * (256 * 7 * 7));
  ASSERT_NE(FindStage(ast, "load_C_partial"), nullptr);
  EXPECT_EQ(FindStage(ast, "load_C_partial")->buffer, "dw");
  EXPECT_EQ(FindStage(ast, "mma")->template_values[2], 0.f);  // iterator_optimized
}

// One layer, three passes: three tasks. fprop's is the plugin's own suite task, with no conv_kind.
TEST_F(CutlassConvKinds, FpropDgradAndWgradOfALayerAreDifferentTasks) {
  KernelRow fprop =
      Row("cutlass_tensorop_h16816fprop_optimized_64x64_32x3_nhwc_align8", "fprop", kConv2_3x3, "f16", "f16", "f16");
  fprop.cta_m = fprop.cta_n = 64;
  KernelRow dgrad = fprop, wgrad = fprop;
  dgrad.kind = "dgrad";
  dgrad.operation = "cutlass_tensorop_h16816dgrad_optimized_64x64_32x3_nhwc_align8";
  wgrad.kind = "wgrad";
  wgrad.operation = "cutlass_tensorop_h16816wgrad_optimized_64x64_32x3_nhwc_align8";
  const auto records = Import(WriteCsv("kinds.csv", kF16File, {fprop, dgrad, wgrad}));
  ASSERT_EQ(records.size(), 3u);
  const std::string shape = "n256_h56_w56_c64_k64_r3_s3_p56_q56_pad1_str1.h16816";
  EXPECT_EQ(records[0].task.key, "resnet50.conv2d." + shape);
  EXPECT_EQ(records[1].task.key, "resnet50.conv2d_dgrad." + shape);
  EXPECT_EQ(records[2].task.key, "resnet50.conv2d_wgrad." + shape);
  EXPECT_EQ(records[0].task.workload.count("conv_kind"), 0u);
  auto suite = Plugin().Tasks("resnet50", "tensorcore.h16816");
  ASSERT_TRUE(suite.ok());
  bool found = false;
  for (const Task& t : *suite)
    if (t.key == records[0].task.key) {
      found = true;
      EXPECT_EQ(CanonicalString(t.workload), CanonicalString(records[0].task.workload));
    }
  EXPECT_TRUE(found) << records[0].task.key;
  EXPECT_EQ(BufferShapes(Lower(records[0])),
            (std::vector<std::string>{"A[256,56,56,64]", "B[64,3,3,64]", "C[256,56,56,64]"}));
  // Schedules sampled for the dgrad task name dgrad kernels and lower.
  auto sampled = Plugin().SampleSchedules(records[1].task, records[1].intrinsic, 5, 3);
  ASSERT_TRUE(sampled.ok()) << sampled.status().message();
  for (const ParamMap& s : *sampled) {
    EXPECT_NE(Str(s, "operation").find("h16816dgrad_"), std::string::npos) << Str(s, "operation");
    EXPECT_TRUE(Plugin().Lower(records[1].task, records[1].intrinsic, s, records[1].hardware).ok());
  }
}

// sha256 of the public files' records (as `registry import cutlass -o` writes
// them) and of their AST programs (as `registry features --dump-ast` prints
// them), taken with the importer before dgrad and wgrad existed (commit
// 35b3eff). A change here changes every fprop record: only regenerate with a
// deliberate record or AST format change.
struct PinnedFile {
  const char* name;
  const char* records_sha256;
  const char* asts_sha256;
};
constexpr PinnedFile kPinned[] = {
    {"resnet50_cutlass_profiler_result.csv", "9c6cdd068349ed45296706ccc1dc2796420829693e6c4a2f60857f499fcd82a6",
     "98645c6a2c721e9b0cf07eb2bee1113fa01c4939585bf0c4ea19b75aa4721981"},
    {"resnet50_cutlass_profiler_result_fp16_fp32_accum.csv",
     "b213f061d80ba9e3abaa4053e67fac18c990ce2651afda8a0086be4d8c3f7dfe",
     "37d187abfa665d310d4da0e901981f7bf26863f2498ca97a5b7c88e5ae45ea89"},
    {"resnet50_cutlass_profiler_result_int8.csv", "766a69e656ee278d3cf75107f73c91bf5de51b54b707fca0f918cfd1318eeb85",
     "2bfc51821f9a5b0e5d81ee7842303139cf7392cc0f6797781125a8cefb465f50"},
};

TEST_F(CutlassConvKinds, FpropRecordsAndAstsAreExactlyWhatTheyWere) {
  for (const PinnedFile& file : kPinned) {
    const auto records = Import(ucmoh::testing::CutlassDataDir() + "/" + file.name);
    ASSERT_FALSE(records.empty()) << file.name;
    std::string lines, asts;
    for (const Record& r : records) {
      lines += RecordToJsonLine(r) + "\n";
      AstProgram program{r.task.key, r.intrinsic, r.hardware, Lower(r), r.latency.median_s};
      asts += AstProgramToJson(program).dump() + "\n";
    }
    EXPECT_EQ(Sha256Hex(lines), file.records_sha256) << file.name;
    EXPECT_EQ(Sha256Hex(asts), file.asts_sha256) << file.name;
  }
}

// Each bad row is line 3, after a good one; the import fails naming it and returns no record.
TEST_F(CutlassConvKinds, UnsupportedRowsStopTheImportWithFileAndLine) {
  const KernelRow good = DgradRows()[0];
  auto expect_refused = [&](KernelRow bad, const std::string& what) {
    const std::string path = WriteCsv("bad.csv", kF32AccFile, {good, bad});
    auto records = Plugin().Import("cutlass", path);
    ASSERT_FALSE(records.ok()) << what;
    EXPECT_NE(records.status().message().find("bad.csv:3: "), std::string::npos) << records.status().message();
    EXPECT_NE(records.status().message().find(what), std::string::npos) << records.status().message();
  };
  KernelRow row = good;
  row.conv_kind = "unknown";
  expect_refused(row, "conv kind 'unknown' is not supported (fprop, dgrad or wgrad)");
  row = good;
  row.conv_kind = row.kind = "deconv";
  row.operation = "cutlass_tensorop_s16816deconv_optimized_f16_128x64_32x4_nhwc_align8";
  expect_refused(row, "conv kind 'deconv' is not supported");
  row = good;
  row.operation = "cutlass_tensorop_s16816dgrad_f16_128x64_32x4_nhwc_align8";  // no iterator
  expect_refused(row, "is not a CUTLASS conv2d or gemm tensor-op kernel name (no iterator");
  row.operation = "my_dgrad_kernel";
  expect_refused(row, "operation 'my_dgrad_kernel' is not a CUTLASS conv2d or gemm tensor-op kernel name");
  row = good;
  row.conv_kind = "wgrad";  // the name says dgrad
  expect_refused(row, "is a dgrad kernel but conv_kind is 'wgrad'");
  row = good;
  row.cta_n = 128;
  expect_refused(row, "names tile 128x64_32x4 but the cta_m, cta_n, cta_k and stages columns say 128x128_32x4");
  row = DgradRows()[2];  // the unity-stride kernel on the stride-2 layer, said to have run
  row.disposition = "passed";
  row.status = "success";
  expect_refused(row, "is a unity-stride kernel but the problem has stride 2x2");
  row = good;
  row.iterator = "analytic";
  expect_refused(row, "has the optimized iterator but iterator_algorithm is 'analytic'");
  row = good;
  row.split_k = 2;
  row.split_k_mode = "parallel";
  expect_refused(row, "split_k_mode 'parallel' is not supported (only serial)");
}

// CUTLASS builds dgrad and wgrad for f16 and f32 accumulation only.
TEST_F(CutlassConvKinds, IntegerGradientKernelsAreRefused) {
  KernelRow row =
      Row("cutlass_tensorop_i16832wgrad_optimized_s8_128x128_64x3_nhwc_align16", "wgrad", kConv5_expand, "s8", "s32",
          "s32");
  row.cta_k = 64;
  row.inst_k = 32;
  auto records = Plugin().Import("cutlass", WriteCsv("int8.csv", kF32AccFile, {row}));
  ASSERT_FALSE(records.ok());
  EXPECT_NE(records.status().message().find("int8.csv:2: tensorcore.i16832 has no wgrad kernels in CUTLASS"),
            std::string::npos)
      << records.status().message();
}

TEST(CutlassOperationName, ReadsEveryPartCutlassSpells) {
  auto op = tensorcore::ParseOperationName(
      "cutlass_sm80_tensorop_f16_s16816dgrad_analytic_f16_256x64_64x3_nhwc_unity_stride_align4");
  ASSERT_TRUE(op.ok()) << op.status().message();
  EXPECT_EQ(op->instruction, "s16816");
  EXPECT_EQ(op->kind, "dgrad");
  EXPECT_EQ(op->iterator, "analytic");
  EXPECT_EQ(op->element_a, "f16");
  EXPECT_EQ(op->element_c, "f16");
  EXPECT_EQ(op->cta_m, 256);
  EXPECT_EQ(op->cta_n, 64);
  EXPECT_EQ(op->cta_k, 64);
  EXPECT_EQ(op->stages, 3);
  EXPECT_EQ(op->layout, "nhwc");
  EXPECT_TRUE(op->unity_stride);
  EXPECT_EQ(op->alignment, 4);
  op = tensorcore::ParseOperationName("cutlass_tensorop_h1688fprop_optimized_256x128_32x2_nhwc_align8");
  ASSERT_TRUE(op.ok()) << op.status().message();
  EXPECT_EQ(op->instruction, "h1688");
  EXPECT_TRUE(op->element_a.empty() && op->element_c.empty() && !op->unity_stride);
  for (const char* bad : {"cutlass_simt_sfprop_optimized_128x128_8x2_nhwc_align1",
                          "cutlass_tensorop_h1688fprop_optimized_256x128_32x2_nhwc",
                          "cutlass_tensorop_h1688fprop_optimized_256x128_nhwc_align8",
                          "cutlass_tensorop_h1688fprop_optimized_256x128_32x2_nhwc_align0",
                          "cutlass_tensorop_h1688_optimized_256x128_32x2_nhwc_align8"})
    EXPECT_FALSE(tensorcore::ParseOperationName(bad).ok()) << bad;
}

// Through the `registry` binary: the CSVs import, featurize, and a bad one writes nothing.
TEST_F(CutlassConvKinds, RegistryImportsDgradAndWgrad) {
  const std::string registry =
      std::string(UCMOH_REGISTRY_BIN) + " --plugins " + UCMOH_SOURCE_DIR + "/plugins.json ";
  const std::string dgrad = WriteCsv("dgrad.csv", kF32AccFile, DgradRows());
  const std::string wgrad = WriteCsv("wgrad.csv", kF16File, WgradRows());
  const std::string out = (dir_ / "grads.jsonl").string();
  auto run = ucmoh::testing::RunCommand(registry + "import cutlass " + dgrad + " " + wgrad + " -o " + out);
  ASSERT_EQ(run.rc, 0) << run.out;
  EXPECT_NE(run.out.find("imported 4 records"), std::string::npos) << run.out;
  run = ucmoh::testing::RunCommand(registry + "features " + out);
  EXPECT_EQ(run.rc, 0) << run.out;

  KernelRow bad = DgradRows()[0];
  bad.conv_kind = "wgrad";
  const std::string bad_csv = WriteCsv("bad.csv", kF32AccFile, {DgradRows()[0], bad});
  const std::string bad_out = (dir_ / "bad.jsonl").string();
  run = ucmoh::testing::RunCommand(registry + "import cutlass " + bad_csv + " -o " + bad_out);
  EXPECT_NE(run.rc, 0);
  EXPECT_NE(run.out.find("error: " + bad_csv + ":3: operation"), std::string::npos) << run.out;
  EXPECT_FALSE(fs::exists(bad_out));
}

}  // namespace
