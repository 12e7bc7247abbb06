// CUTLASS GEMM profiler output in the `cutlass` importer: "tn" GEMM rows
// (universal, batched, split-K; f16 / f32 / s32 accumulation) become records
// of the 1x1 conv whose implicit GEMM they are, exactly the tasks and
// schedules of the conv rows of that problem; headers without the newer
// columns and names with a fork's suffix import; rows of other layouts or
// kinds stop the import with file:line.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "cutlass_importer.h"
#include "gpu_architecture.h"
#include "operation_name.h"
#include "program.h"
#include "ucmoh/hardware_json.h"

namespace ucmoh::tensorcore {
namespace {

const char* const kHeader =
    "Problem,Provider,OperationKind,Operation,Disposition,Status,gemm_kind,m,n,k,A,B,C,alpha,beta,"
    "split_k_mode,split_k_slices,batch_count,op_class,accum,cta_m,cta_n,cta_k,stages,warps_m,warps_n,warps_k,"
    "inst_m,inst_n,inst_k,min_cc,max_cc,Bytes,Flops,Flops/Byte,Runtime,GB/s,GFLOPs";

struct GemmRow {
  std::string operation = "cutlass_tensorop_s16816gemm_f16_128x128_32x3_tn_align8";
  std::string kind = "universal", a = "f16:row", b = "f16:column", c = "f32:row", accum = "f32";
  int64_t m = 4096, n = 768, k = 3072, split_k = 1, batch = 1;
  int64_t cta_m = 128, cta_n = 128, cta_k = 32, stages = 3, warps_m = 2, warps_n = 2;
  int64_t inst_m = 16, inst_n = 8, inst_k = 16;
  std::string op_class = "tensorop", split_k_mode = "serial";

  std::string Line() const {
    auto n_ = [](int64_t v) { return std::to_string(v); };
    return "1,CUTLASS,gemm," + operation + ",passed,success," + kind + "," + n_(m) + "," + n_(n) + "," + n_(k) +
           "," + a + "," + b + "," + c + ",1,0," + split_k_mode + "," + n_(split_k) + "," + n_(batch) + "," +
           op_class + "," + accum + "," + n_(cta_m) + "," + n_(cta_n) + "," + n_(cta_k) + "," + n_(stages) + "," +
           n_(warps_m) + "," + n_(warps_n) + ",1," + n_(inst_m) + "," + n_(inst_n) + "," + n_(inst_k) +
           ",80,1024,1000,2000,2,0.125,8,16000";
  }
};

class CutlassGemmImport : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::path(::testing::TempDir()) /
           ("ucmoh_gemm_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string Write(const std::string& header, const std::vector<GemmRow>& rows) {
    const std::string path = (dir_ / "gemm.csv").string();
    std::ofstream out(path);
    out << header << "\n";
    for (const GemmRow& row : rows) out << row.Line() << "\n";
    return path;
  }
  Expected<std::vector<Record>> Import(const std::vector<GemmRow>& rows) { return ImportCutlassCsv(Write(kHeader, rows)); }
  void ExpectRefused(const GemmRow& row, const std::string& what) {
    auto records = Import({GemmRow{}, row});
    ASSERT_FALSE(records.ok()) << what;
    EXPECT_NE(records.status().message().find("gemm.csv:3: "), std::string::npos) << records.status().message();
    EXPECT_NE(records.status().message().find(what), std::string::npos) << records.status().message();
  }

  std::filesystem::path dir_;
};

TEST_F(CutlassGemmImport, TnRowsBecomeTheOneByOneConvOfTheirImplicitGemm) {
  GemmRow int8;
  int8.operation = "cutlass_tensorop_i16832gemm_s8_128x128_64x3_tn_align16";
  int8.a = "s8:row", int8.b = "s8:column", int8.c = "s32:row", int8.accum = "s32";
  int8.m = 512, int8.n = 1024, int8.k = 2048, int8.cta_k = 64, int8.inst_k = 32;
  GemmRow half;
  half.operation = "cutlass_tensorop_h16816gemm_256x128_32x3_tn_align8";
  half.c = "f16:row", half.accum = "f16", half.cta_m = 256, half.warps_m = 4, half.m = 1000;
  auto records = Import({GemmRow{}, int8, half});
  ASSERT_TRUE(records.ok()) << records.status().message();
  ASSERT_EQ(records->size(), 3u);
  // 4096 tokens x 3072 -> 768: BERT-base's second FFN GEMM at batch 32.
  const Record& bert = (*records)[0];
  EXPECT_EQ(bert.task.key, "bert.conv2d.n4096_h1_w1_c3072_k768_r1_s1_p1_q1_pad0_str1.s16816");
  EXPECT_EQ(bert.intrinsic, "tensorcore.s16816");
  EXPECT_EQ(std::get<int64_t>(bert.schedule.at("split_k_slices")), 1);
  EXPECT_EQ(std::get<std::string>(bert.schedule.at("operation")), GemmRow{}.operation);
  EXPECT_DOUBLE_EQ(bert.latency.median_s, 0.125e-3);
  EXPECT_EQ((*records)[1].task.key, "gemm.conv2d.n512_h1_w1_c2048_k1024_r1_s1_p1_q1_pad0_str1.i16832");
  EXPECT_EQ(std::get<std::string>((*records)[1].task.workload.at("out_type")), "s32");
  EXPECT_EQ((*records)[2].task.key, "gemm.conv2d.n1000_h1_w1_c3072_k768_r1_s1_p1_q1_pad0_str1.h16816");
  for (const Record& r : *records) {
    auto program = ResolveProgram(r.task, r.intrinsic, r.schedule, DefaultArchitecture());
    EXPECT_TRUE(program.ok()) << program.status().message();
  }
}

TEST_F(CutlassGemmImport, BatchedAndSplitKRowsAreRead) {
  GemmRow batched;
  batched.kind = "batched", batched.batch = 12, batched.m = 128, batched.n = 128, batched.k = 64;
  GemmRow split;
  split.split_k = 4;
  auto records = Import({batched, split});
  ASSERT_TRUE(records.ok()) << records.status().message();
  EXPECT_EQ((*records)[0].task.key, "gemm.conv2d.n1536_h1_w1_c64_k128_r1_s1_p1_q1_pad0_str1.s16816");
  EXPECT_EQ(std::get<int64_t>((*records)[1].schedule.at("split_k_slices")), 4);
}

TEST_F(CutlassGemmImport, OlderHeadersAndForkSuffixesImport) {
  // No Flops/Byte, split_k_mode or batch_count: what older profilers print.
  std::string header = kHeader;
  for (const std::string column : {",split_k_mode", ",batch_count", ",Flops/Byte"})
    header.erase(header.find(column), column.size());
  GemmRow row;
  row.operation += "_myfork_v2";
  const std::string path = (dir_ / "old.csv").string();
  std::string line = row.Line();
  // Drop the values of the removed columns (split_k_mode, batch_count, Flops/Byte).
  line.replace(line.find(",serial,1,1,"), std::string(",serial,1,1,").size(), ",1,");
  line.replace(line.find(",2,0.125,"), std::string(",2,0.125,").size(), ",0.125,");
  std::ofstream(path) << header << "\n" << line << "\n";
  auto records = ImportCutlassCsv(path);
  ASSERT_TRUE(records.ok()) << records.status().message();
  ASSERT_EQ(records->size(), 1u);
  EXPECT_DOUBLE_EQ(records->front().latency.median_s, 0.125e-3);

  auto op = ParseOperationName("cutlass_tensorop_s16816fprop_optimized_f16_128x128_32x3_nhwc_align8_myfork_v2");
  ASSERT_TRUE(op.ok()) << op.status().message();
  EXPECT_EQ(op->suffix, "myfork_v2");
  EXPECT_EQ(op->alignment, 8);
  EXPECT_EQ(op->layout, "nhwc");
}

TEST_F(CutlassGemmImport, OtherLayoutsAndKindsStopTheImportWithFileAndLine) {
  GemmRow row;
  row.a = "f16:column";
  ExpectRefused(row, "layouts A column, B column, C row are not supported (only A row, B column, C row");
  row = GemmRow{};
  row.operation = "cutlass_tensorop_s16816gemm_f16_128x128_32x3_nt_align8";
  ExpectRefused(row, "has layouts 'nt' but the A, B columns say tn");
  row = GemmRow{};
  row.kind = "planar_complex";
  ExpectRefused(row, "gemm_kind 'planar_complex' is not supported");
  row = GemmRow{};
  row.operation = "cutlass_tensorop_s16816fprop_optimized_f16_128x128_32x3_nhwc_align8";
  ExpectRefused(row, "is a fprop kernel in gemm profiler output");
  row = GemmRow{};
  row.split_k = 2, row.split_k_mode = "parallel";
  ExpectRefused(row, "split_k_mode 'parallel' is not supported (only serial)");
  row = GemmRow{};
  row.cta_k = 64;
  ExpectRefused(row, "names tile 128x128_32x3 but the cta_m, cta_n, cta_k and stages columns say 128x128_64x3");
  row = GemmRow{};
  row.b = "f32:column";
  ExpectRefused(row, "A is f16 and B is f32: their types differ");

  const std::string path = (dir_ / "neither.csv").string();
  std::ofstream(path) << "Problem,Operation\n1,x\n";
  auto records = ImportCutlassCsv(path);
  ASSERT_FALSE(records.ok());
  EXPECT_NE(records.status().message().find("missing column 'conv_kind' (conv2d profiler output) or 'gemm_kind'"),
            std::string::npos);
}

// PATH.gpu.json beside a profiler CSV names the GPU its rows ran on: the
// records carry it, kernels are validated on its architecture, and a GPU the
// plugin does not model is refused by name.
TEST_F(CutlassGemmImport, AGpuJsonBesideTheFileNamesTheRowsGpu) {
  const std::string path = Write(kHeader, {GemmRow{}});
  auto rtx = ImportCutlassCsv(path);
  ASSERT_TRUE(rtx.ok()) << rtx.status().message();
  EXPECT_EQ(rtx->front().hardware.model, "NVIDIA GeForce RTX 3070 (GA104, Ampere, sm_86)");
  EXPECT_EQ(std::get<std::string>(rtx->front().provenance.details.at("device")), kCutlassDevice);

  HardwareParams a100 = rtx->front().hardware;
  a100.model = "NVIDIA A100-SXM4-80GB (sm_80)";
  a100.cores = 108;
  a100.flags = {"sm_80", "mma.sync", "ldmatrix", "cp.async"};
  std::ofstream(path + ".gpu.json") << HardwareToJson(a100).dump(2);
  auto records = ImportCutlassCsv(path);
  ASSERT_TRUE(records.ok()) << records.status().message();
  EXPECT_EQ(records->front().hardware, a100);
  EXPECT_EQ(std::get<std::string>(records->front().provenance.details.at("device")), a100.model);
  EXPECT_EQ(records->front().provenance.details.count("source_repo"), 0u);

  HardwareParams turing = a100;
  turing.model = "Tesla T4 (sm_75)";
  turing.flags = {"sm_75", "mma.sync", "ldmatrix"};
  std::ofstream(path + ".gpu.json") << HardwareToJson(turing).dump(2);
  auto on_turing = ImportCutlassCsv(path);  // s16816 is an sm_80 instruction
  ASSERT_FALSE(on_turing.ok());
  EXPECT_NE(on_turing.status().message().find("gemm.csv:2: "), std::string::npos) << on_turing.status().message();
  EXPECT_NE(on_turing.status().message().find("sm_75"), std::string::npos) << on_turing.status().message();

  HardwareParams volta = a100;
  volta.flags = {"sm_70"};
  std::ofstream(path + ".gpu.json") << HardwareToJson(volta).dump(2);
  auto unknown = ImportCutlassCsv(path);
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("gemm.csv.gpu.json"), std::string::npos) << unknown.status().message();
  EXPECT_NE(unknown.status().message().find("sm_70"), std::string::npos) << unknown.status().message();
  std::ofstream(path + ".gpu.json") << "{not json";
  auto broken = ImportCutlassCsv(path);
  ASSERT_FALSE(broken.ok());
  EXPECT_NE(broken.status().message().find("gemm.csv.gpu.json: not JSON"), std::string::npos);
}

}  // namespace
}  // namespace ucmoh::tensorcore
