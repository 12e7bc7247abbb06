// The tensorcore plugin through its static implementation library: the
// target description, the CUTLASS importer on the public data (skipped only
// when the shared data folder is absent), the lowering's honesty about flops, schedule
// validation, sampling and featurization.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "gpu_architecture.h"
#include "kernel_resources.h"
#include "shared_data.h"
#include "tensorcore_ast_walk.h"
#include "tensorcore_plugin.h"
#include "ucmoh/features.h"
#include "ucmoh/params.h"

namespace {

using namespace ucmoh;
namespace fs = std::filesystem;

const tensorcore::TensorCorePlugin& Plugin() {
  static const tensorcore::TensorCorePlugin plugin;
  return plugin;
}

using ucmoh::testing::ComputeFlops;
using ucmoh::testing::CutlassDataDir;
using ucmoh::testing::FindStage;
using ucmoh::testing::Stages;

struct DataFile {
  std::string name;
  size_t rows;
  std::map<std::string, size_t> per_intrinsic;
};

const std::vector<DataFile>& DataFiles() {
  static const std::vector<DataFile> kFiles = {
      {"resnet50_cutlass_profiler_result.csv", 1102,
       {{"tensorcore.h16816", 570}, {"tensorcore.h1688", 532}}},
      {"resnet50_cutlass_profiler_result_fp16_fp32_accum.csv", 1276,
       {{"tensorcore.s16816", 741}, {"tensorcore.s1688", 535}}},
      {"resnet50_cutlass_profiler_result_int8.csv", 366,
       {{"tensorcore.i16832", 209}, {"tensorcore.i8816", 157}}},
  };
  return kFiles;
}

// Imports each public file once for all tests; a failed import is not
// cached, so every test that needs the file reports it.
const std::vector<Record>& Imported(const std::string& name) {
  static std::map<std::string, std::vector<Record>> cache;
  static const std::vector<Record> kNone;
  auto it = cache.find(name);
  if (it != cache.end()) return it->second;
  auto records = Plugin().Import("cutlass", CutlassDataDir() + "/" + name);
  EXPECT_TRUE(records.ok()) << records.status().message();
  return records.ok() ? cache[name] = std::move(*records) : kNone;
}

int64_t Int(const ParamMap& params, const std::string& key) {
  auto value = GetInt(params, key);
  EXPECT_TRUE(value.ok()) << value.status().message();
  return value.ok() ? *value : 0;
}

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// The flops CUTLASS's tiles execute, computed here from the task and the
// schedule alone: output tiles padded to the block tile, and every filter tap
// walking ceil(channels per split slice / cta_k) k tiles.
double PaddedFlops(const Task& task, const ParamMap& schedule) {
  const int64_t m = Int(task.workload, "n") * Int(task.workload, "p") * Int(task.workload, "q");
  const int64_t n = Int(task.workload, "k");
  const int64_t cta_m = Int(schedule, "cta_m"), cta_n = Int(schedule, "cta_n");
  const int64_t cta_k = Int(schedule, "cta_k"), split = Int(schedule, "split_k_slices");
  const int64_t taps = Int(task.workload, "r") * Int(task.workload, "s");
  const int64_t k_tiles = taps * CeilDiv(CeilDiv(Int(task.workload, "c"), split), cta_k);
  return 2.0 * static_cast<double>(CeilDiv(m, cta_m) * cta_m) *
         static_cast<double>(CeilDiv(n, cta_n) * cta_n) *
         static_cast<double>(split * k_tiles * cta_k);
}

double ExactFlops(const Task& task) {
  const auto& w = task.workload;
  return 2.0 * static_cast<double>(Int(w, "n") * Int(w, "p") * Int(w, "q")) *
         static_cast<double>(Int(w, "k")) *
         static_cast<double>(Int(w, "c") * Int(w, "r") * Int(w, "s"));
}

const IntrinsicInfo& Intrinsic(const std::string& name) {
  static const std::vector<IntrinsicInfo> infos = Plugin().Intrinsics();
  for (const auto& info : infos)
    if (info.name == name) return info;
  ADD_FAILURE() << "no intrinsic " << name;
  return infos.front();
}

std::vector<std::string> IntrinsicNames() {
  std::vector<std::string> names;
  for (const auto& info : Plugin().Intrinsics()) names.push_back(info.name);
  return names;
}

Task FirstResnetTask(const std::string& intrinsic) {
  auto tasks = Plugin().Tasks("resnet50", intrinsic);
  EXPECT_TRUE(tasks.ok()) << tasks.status().message();
  return tasks->front();
}

ParamMap H16816Schedule() {
  return {{"cta_m", int64_t{128}},  {"cta_n", int64_t{128}},   {"cta_k", int64_t{32}},
          {"stages", int64_t{3}},   {"warps_m", int64_t{2}},   {"warps_n", int64_t{2}},
          {"warps_k", int64_t{1}},  {"alignment", int64_t{8}}, {"split_k_slices", int64_t{1}},
          {"iterator", std::string("optimized")}, {"layout", std::string("nhwc")}};
}

// ---------------------------------------------------------------------------

TEST(TensorCorePlugin, DescribesAnAmpereGpuAndSixIntrinsics) {
  const TargetInfo target = Plugin().Target();
  EXPECT_EQ(target.name, "tensorcore");
  EXPECT_TRUE(target.hardware.is_gpu);
  EXPECT_EQ(target.hardware.cores, 46);
  EXPECT_EQ(target.hardware.warp_size, 32);
  EXPECT_EQ(target.hardware.max_threads_per_block, 1024);
  EXPECT_EQ(target.hardware.registers_per_sm, 65536);
  EXPECT_GT(target.hardware.shared_bytes_per_block, 48 * 1024);

  const std::map<std::string, std::array<int64_t, 3>> shapes = {
      {"tensorcore.h1688", {16, 8, 8}},   {"tensorcore.h16816", {16, 8, 16}},
      {"tensorcore.s1688", {16, 8, 8}},   {"tensorcore.s16816", {16, 8, 16}},
      {"tensorcore.i8816", {8, 8, 16}},   {"tensorcore.i16832", {16, 8, 32}}};
  const auto intrinsics = Plugin().Intrinsics();
  ASSERT_EQ(intrinsics.size(), shapes.size());
  for (const IntrinsicInfo& info : intrinsics) {
    ASSERT_TRUE(shapes.count(info.name)) << info.name;
    const auto& shape = shapes.at(info.name);
    EXPECT_EQ(info.m, shape[0]) << info.name;
    EXPECT_EQ(info.n, shape[1]) << info.name;
    EXPECT_EQ(info.k, shape[2]) << info.name;
    EXPECT_EQ(info.ops_per_call, 2.0 * info.m * info.n * info.k) << info.name;
    EXPECT_EQ(info.instruction.rfind("mma.sync.aligned.", 0), 0u) << info.instruction;
  }
  EXPECT_EQ(Intrinsic("tensorcore.s16816").accum_type, "f32");
  EXPECT_EQ(Intrinsic("tensorcore.h16816").accum_type, "f16");
  EXPECT_EQ(Intrinsic("tensorcore.i16832").input_type, "s8");
  EXPECT_EQ(Plugin().TemplateDimNames().size(), static_cast<size_t>(kTemplateDims));
  EXPECT_EQ(Plugin().Importers(), std::vector<std::string>{"cutlass"});
}

TEST(TensorCorePlugin, Resnet50SuiteHas19LayersPerIntrinsic) {
  EXPECT_EQ(Plugin().TaskSuites(), std::vector<std::string>{"resnet50"});
  for (const std::string& name : IntrinsicNames()) {
    auto tasks = Plugin().Tasks("resnet50", name);
    ASSERT_TRUE(tasks.ok()) << tasks.status().message();
    std::set<std::string> keys;
    for (const Task& task : *tasks) keys.insert(task.key);
    EXPECT_EQ(keys.size(), 19u) << name;
  }
  EXPECT_EQ(FirstResnetTask("tensorcore.h16816").key,
            "resnet50.conv2d.n256_h56_w56_c64_k64_r1_s1_p56_q56_pad0_str1.h16816");
  auto unknown = Plugin().Tasks("vgg16", "tensorcore.h16816");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("vgg16"), std::string::npos);
}

TEST(TensorCoreImport, EachPublicFileImportsToItsRowCount) {
  UCMOH_SKIP_WITHOUT_SHARED_DATA();
  size_t total = 0;
  for (const DataFile& file : DataFiles()) {
    const auto& records = Imported(file.name);
    EXPECT_EQ(records.size(), file.rows) << file.name;
    total += records.size();
    std::map<std::string, size_t> per_intrinsic;
    std::map<std::string, std::set<std::string>> tasks;
    for (const Record& r : records) {
      ++per_intrinsic[r.intrinsic];
      tasks[r.intrinsic].insert(r.task.key);
    }
    EXPECT_EQ(per_intrinsic, file.per_intrinsic) << file.name;
    for (const auto& [intrinsic, keys] : tasks) {
      EXPECT_EQ(keys.size(), 19u) << intrinsic;
      // Every imported task is one of the plugin's own resnet50 tasks, workload and all.
      auto suite = Plugin().Tasks("resnet50", intrinsic);
      ASSERT_TRUE(suite.ok());
      std::map<std::string, ParamMap> by_key;
      for (const Task& t : *suite) by_key[t.key] = t.workload;
      for (const Record& r : records)
        if (r.intrinsic == intrinsic) {
          ASSERT_TRUE(by_key.count(r.task.key)) << r.task.key;
          EXPECT_EQ(CanonicalString(by_key[r.task.key]), CanonicalString(r.task.workload));
        }
    }
  }
  EXPECT_EQ(total, 2744u);
}

TEST(TensorCoreImport, RecordsCarryTheRowFaithfully) {
  UCMOH_SKIP_WITHOUT_SHARED_DATA();
  const auto& records = Imported("resnet50_cutlass_profiler_result.csv");
  ASSERT_FALSE(records.empty());
  // Line 2: cutlass_tensorop_h1688fprop_optimized_256x128_32x2_nhwc_align8, 1.51285 ms.
  const Record& r = records.front();
  EXPECT_EQ(r.target, "tensorcore");
  EXPECT_EQ(r.intrinsic, "tensorcore.h1688");
  EXPECT_EQ(r.task.key, "resnet50.conv2d.n256_h56_w56_c64_k256_r1_s1_p56_q56_pad0_str1.h1688");
  EXPECT_EQ(r.task.op, "conv2d");
  EXPECT_EQ(*GetString(r.task.workload, "in_type"), "f16");
  EXPECT_EQ(*GetString(r.task.workload, "acc_type"), "f16");
  EXPECT_EQ(Int(r.schedule, "cta_m"), 256);
  EXPECT_EQ(Int(r.schedule, "cta_n"), 128);
  EXPECT_EQ(Int(r.schedule, "cta_k"), 32);
  EXPECT_EQ(Int(r.schedule, "stages"), 2);
  EXPECT_EQ(Int(r.schedule, "warps_m"), 4);
  EXPECT_EQ(Int(r.schedule, "alignment"), 8);
  EXPECT_EQ(*GetString(r.schedule, "iterator"), "optimized");
  EXPECT_EQ(*GetString(r.schedule, "operation"),
            "cutlass_tensorop_h1688fprop_optimized_256x128_32x2_nhwc_align8");
  EXPECT_DOUBLE_EQ(r.latency.median_s, 1.51285e-3);
  EXPECT_DOUBLE_EQ(r.latency.mean_s, r.latency.median_s);
  EXPECT_DOUBLE_EQ(r.latency.min_s, r.latency.median_s);
  EXPECT_EQ(r.latency.repeats, 1);
  EXPECT_EQ(r.provenance.kind, "imported");
  EXPECT_EQ(r.provenance.source, "resnet50_cutlass_profiler_result.csv");
  EXPECT_EQ(Int(r.provenance.details, "line"), 2);
  EXPECT_EQ(Int(r.provenance.details, "flops"), 26717716480);
  EXPECT_EQ(*GetString(r.provenance.details, "source_repo"),
            "github.com/qingchanghan/tvm-cutlass-eval@63d5ee62");

  // The s-file spells its input type in the operation name and writes f32 output.
  const Record& s = Imported("resnet50_cutlass_profiler_result_fp16_fp32_accum.csv").front();
  EXPECT_EQ(s.intrinsic, "tensorcore.s1688");
  EXPECT_EQ(*GetString(s.task.workload, "acc_type"), "f32");
  EXPECT_EQ(*GetString(s.task.workload, "out_type"), "f32");

  // Rows the verifier marked "incorrect" are real timings and are kept, labelled.
  size_t incorrect = 0;
  for (const Record& rec : records)
    incorrect += *GetString(rec.provenance.details, "disposition") == "incorrect";
  EXPECT_EQ(incorrect, 58u);
}

TEST(TensorCoreLowering, EveryImportedRecordLowersWithHonestFlops) {
  UCMOH_SKIP_WITHOUT_SHARED_DATA();
  for (const DataFile& file : DataFiles()) {
    ASSERT_EQ(Imported(file.name).size(), file.rows) << file.name;
    for (const Record& r : Imported(file.name)) {
      auto ast = Plugin().Lower(r.task, r.intrinsic, r.schedule, r.hardware);
      ASSERT_TRUE(ast.ok()) << r.task.key << ": " << ast.status().message();
      const double flops = ComputeFlops(*ast);
      const double csv_flops = static_cast<double>(Int(r.provenance.details, "flops"));
      const double outputs = static_cast<double>(Int(r.task.workload, "n") * Int(r.task.workload, "p") *
                                                 Int(r.task.workload, "q") * Int(r.task.workload, "k"));
      // The profiler's Flops = 2MNK + 2MN (the epilogue's alpha scaling); mma issues only 2MNK.
      EXPECT_GE(flops, csv_flops - 2 * outputs) << r.task.key << " line " << Int(r.provenance.details, "line");
      EXPECT_GE(flops, 0.98 * csv_flops) << r.task.key;
      EXPECT_GE(flops, ExactFlops(r.task));
      EXPECT_LE(flops, PaddedFlops(r.task, r.schedule) * (1 + 1e-12)) << r.task.key;
      EXPECT_GE(flops, PaddedFlops(r.task, r.schedule) * (1 - 1e-12)) << r.task.key;

      const Stage* load_a = FindStage(*ast, "load_A_shared");
      ASSERT_NE(load_a, nullptr);
      const double element_bytes = TypeBits(*GetString(r.task.workload, "in_type")) / 8.0;
      EXPECT_EQ(load_a->vector_bytes, Int(r.schedule, "alignment") * element_bytes);
      EXPECT_EQ(load_a->bytes, Int(r.schedule, "cta_m") * Int(r.schedule, "cta_k") * element_bytes);
      EXPECT_LE(load_a->unique_bytes, load_a->bytes);
      for (const Stage* stage : Stages(*ast))
        for (float v : stage->template_values) ASSERT_TRUE(std::isfinite(v)) << stage->name;
    }
  }
}

TEST(TensorCoreLowering, AstFollowsTheCutlassKernel) {
  const Task task = FirstResnetTask("tensorcore.h16816");  // M = 802816, N = 64, K = 64
  ParamMap schedule = H16816Schedule();
  schedule["warps_k"] = int64_t{2};
  schedule["cta_k"] = int64_t{64};
  schedule["split_k_slices"] = int64_t{2};
  auto ast = Plugin().Lower(task, "tensorcore.h16816", schedule, Plugin().Target().hardware);
  ASSERT_TRUE(ast.ok()) << ast.status().message();
  const std::string dump = DumpAst(*ast);
  for (const char* expected : {"gpu_grid", "pipelined", "gpu_warp", "unrolled", "load_A_shared",
                               "load_B_fragment", "mma", "store_C_partial_shared",
                               "load_C_partial", "store_C"})
    EXPECT_NE(dump.find(expected), std::string::npos) << expected << " missing in\n" << dump;
  const Stage* mma = FindStage(*ast, "mma");
  ASSERT_NE(mma, nullptr);
  EXPECT_EQ(mma->intrinsic_calls, (64 / 16) * (64 / 8));  // warp tile 64x64 of 16x8 instructions
  EXPECT_EQ(mma->flops_per_call, 2 * 16 * 8 * 16);
  EXPECT_EQ(FindStage(*ast, "load_A_shared")->reuse, 128.0 / 8);  // every mma along cta_n
  EXPECT_EQ(FindStage(*ast, "load_A_fragment")->reuse, 64.0 / 8);  // every mma along warp_n
  EXPECT_DOUBLE_EQ(ComputeFlops(*ast), PaddedFlops(task, schedule));
}

TEST(TensorCoreLowering, InvalidSchedulesFailNamingTheKey) {
  const Task task = FirstResnetTask("tensorcore.h16816");
  auto expect_error = [&](const std::string& intrinsic, const ParamMap& schedule,
                          const std::string& fragment) {
    auto ast = Plugin().Lower(task, intrinsic, schedule, Plugin().Target().hardware);
    ASSERT_FALSE(ast.ok()) << fragment;
    EXPECT_NE(ast.status().message().find(task.key), std::string::npos) << ast.status().message();
    EXPECT_NE(ast.status().message().find(fragment), std::string::npos) << ast.status().message();
  };
  ParamMap bad = H16816Schedule();
  bad["warps_m"] = int64_t{3};
  expect_error("tensorcore.h16816", bad, "warps_m=3 does not divide cta_m=128");
  expect_error("tensorcore.bogus", H16816Schedule(), "unknown intrinsic 'tensorcore.bogus'");
  expect_error("tensorcore.i16832", H16816Schedule(), "tensorcore.i16832");  // f16 task, s8 intrinsic
  bad = H16816Schedule();
  bad["warps_n"] = int64_t{3};
  expect_error("tensorcore.h16816", bad, "warps_n=3 does not divide cta_n=128");
  bad = H16816Schedule();
  bad["cta_n"] = int64_t{24};
  bad["warps_n"] = int64_t{2};
  expect_error("tensorcore.h16816", bad, "warp tile n=12");
  bad = H16816Schedule();
  bad.erase("stages");
  expect_error("tensorcore.h16816", bad, "stages");
  bad = H16816Schedule();
  bad["stages"] = int64_t{10};
  bad["cta_k"] = int64_t{64};
  expect_error("tensorcore.h16816", bad, "shared memory");
  bad = H16816Schedule();
  bad["alignment"] = int64_t{1};  // 2-byte cp.async does not exist
  expect_error("tensorcore.h16816", bad, "cp.async");
  bad = H16816Schedule();
  bad["iterator"] = std::string("fancy");
  expect_error("tensorcore.h16816", bad, "iterator");
}

// A minimal profiler CSV: the header and one real row of the f16 file, so the
// test does not need the public data.
const char* const kCsvHeader =
    "Problem,Provider,OperationKind,Operation,Disposition,Status,conv_kind,n,h,w,c,k,r,s,p,q,"
    "pad_h,pad_w,stride_h,stride_w,dilation_h,dilation_w,Activation,Filter,Output,conv_mode,"
    "iterator_algorithm,alpha,beta,split_k_mode,split_k_slices,eq_gemm_provider,op_class,accum,"
    "cta_m,cta_n,cta_k,stages,warps_m,warps_n,warps_k,inst_m,inst_n,inst_k,min_cc,max_cc,Bytes,"
    "Flops,Runtime,GB/s,GFLOPs";

std::string CsvRow(const std::string& disposition = "passed", const std::string& status = "success",
                   const std::string& runtime = "1.51285") {
  return "1,CUTLASS,conv2d,cutlass_tensorop_h16816fprop_optimized_256x128_32x3_nhwc_align8," +
         disposition + "," + status +
         ",fprop,256,56,56,64,256,1,1,56,56,0,0,1,1,1,1,f16:nhwc,f16:nhwc,f16:nhwc,cross,optimized,"
         "1,0,serial,1,none,tensorop,f16,256,128,32,3,4,2,1,16,8,16,80,1024,513835008,"
         "26717716480," + runtime + ",316.32,17660.5";
}

class TensorCoreCsvTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("ucmoh_tensorcore_test_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
            "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string Write(const std::string& name, const std::string& text) {
    const std::string path = (dir_ / name).string();
    std::ofstream(path) << text;
    return path;
  }

  Status ImportError(const std::string& text) {
    auto records = Plugin().Import("cutlass", Write("bad.csv", text));
    return records.ok() ? Status::Ok() : records.status();
  }

  fs::path dir_;
};

TEST_F(TensorCoreCsvTest, WellFormedFileImportsAndSkipsRowsThatDidNotRun) {
  const std::string text = std::string(kCsvHeader) + "\n" + CsvRow() + "\n" +
                           CsvRow("not_run", "error_not_supported") + "\n" +
                           CsvRow("incorrect") + "\r\n\n";
  auto records = Plugin().Import("cutlass", Write("ok.csv", text));
  ASSERT_TRUE(records.ok()) << records.status().message();
  ASSERT_EQ(records->size(), 2u);
  EXPECT_EQ((*records)[0].intrinsic, "tensorcore.h16816");
  EXPECT_EQ(Int((*records)[1].provenance.details, "line"), 4);
  EXPECT_EQ((*records)[1].provenance.source, "ok.csv");
  EXPECT_TRUE(Plugin().Lower((*records)[0].task, (*records)[0].intrinsic, (*records)[0].schedule, (*records)[0].hardware).ok());
}

TEST_F(TensorCoreCsvTest, MalformedFilesFailWithFileAndLine) {
  const std::string header = kCsvHeader;
  const std::string bad_runtime = header + "\n" + CsvRow() + "\n" + CsvRow("passed", "success", "fast");
  Status s = ImportError(bad_runtime);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("bad.csv:3: column 'Runtime' is not a number"), std::string::npos)
      << s.message();

  std::string no_cta_m = header;
  no_cta_m.replace(no_cta_m.find("cta_m"), 5, "cta_x");
  s = ImportError(no_cta_m + "\n" + CsvRow());
  EXPECT_NE(s.message().find("bad.csv: missing column 'cta_m'"), std::string::npos) << s.message();

  s = ImportError(header + "\n" + CsvRow() + ",extra");
  EXPECT_NE(s.message().find("bad.csv:2:"), std::string::npos) << s.message();

  s = ImportError(header + "\n\"1\"" + CsvRow().substr(1));
  EXPECT_NE(s.message().find("bad.csv:2:"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("quoted"), std::string::npos) << s.message();

  std::string wrong_inst = CsvRow();
  wrong_inst.replace(wrong_inst.find(",16,8,16,"), 9, ",16,8,8,");
  s = ImportError(header + "\n" + wrong_inst);
  EXPECT_NE(s.message().find("bad.csv:2:"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("h1688"), std::string::npos) << s.message();

  std::string bad_warps = CsvRow();
  bad_warps.replace(bad_warps.find(",3,4,2,1,"), 9, ",3,3,2,1,");
  s = ImportError(header + "\n" + bad_warps);
  EXPECT_NE(s.message().find("bad.csv:2: warps_m=3"), std::string::npos) << s.message();

  s = ImportError("");
  EXPECT_NE(s.message().find("bad.csv"), std::string::npos) << s.message();

  auto missing = Plugin().Import("cutlass", (dir_ / "absent.csv").string());
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("absent.csv"), std::string::npos);
  EXPECT_FALSE(Plugin().Import("tvm", (dir_ / "absent.csv").string()).ok());
}

TEST(TensorCoreSampling, ReproducibleDistinctAndValid) {
  for (const std::string& intrinsic : IntrinsicNames()) {
    auto tasks = Plugin().Tasks("resnet50", intrinsic);
    ASSERT_TRUE(tasks.ok());
    for (size_t t : {size_t{0}, size_t{6}, size_t{16}}) {
      const Task& task = (*tasks)[t];
      auto first = Plugin().SampleSchedules(task, intrinsic, 40, 7);
      auto again = Plugin().SampleSchedules(task, intrinsic, 40, 7);
      auto other = Plugin().SampleSchedules(task, intrinsic, 40, 8);
      ASSERT_TRUE(first.ok()) << first.status().message();
      ASSERT_TRUE(again.ok() && other.ok());
      ASSERT_EQ(first->size(), 40u) << task.key;
      std::vector<std::string> a, b, c;
      for (const auto& s : *first) a.push_back(CanonicalString(s));
      for (const auto& s : *again) b.push_back(CanonicalString(s));
      for (const auto& s : *other) c.push_back(CanonicalString(s));
      EXPECT_EQ(a, b) << task.key;
      EXPECT_NE(a, c) << task.key;
      EXPECT_EQ(std::set<std::string>(a.begin(), a.end()).size(), a.size()) << task.key;
      for (const ParamMap& schedule : *first) {
        auto ast = Plugin().Lower(task, intrinsic, schedule, Plugin().Target().hardware);
        ASSERT_TRUE(ast.ok()) << ast.status().message();
        EXPECT_DOUBLE_EQ(ComputeFlops(*ast), PaddedFlops(task, schedule)) << CanonicalString(schedule);
      }
    }
  }
  const Task task = FirstResnetTask("tensorcore.h1688");
  auto all = Plugin().SampleSchedules(task, "tensorcore.h1688", 1000000, 1);
  ASSERT_TRUE(all.ok());
  ASSERT_GT(all->size(), 40u) << "the whole h1688 space of " << task.key;
  std::set<std::string> distinct;
  for (const auto& s : *all) {
    distinct.insert(CanonicalString(s));
    EXPECT_EQ(Int(s, "stages"), 2);  // the Turing-generation kernels are double-buffered
  }
  EXPECT_EQ(distinct.size(), all->size());
  EXPECT_FALSE(Plugin().SampleSchedules(task, "tensorcore.h1688", 0, 1).ok());
  auto wrong = Plugin().SampleSchedules(task, "tensorcore.nope", 5, 1);
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.status().message().find(task.key), std::string::npos);
}

TEST(TensorCoreFeatures, ImportedRecordsFeaturizeToFiniteTokens) {
  UCMOH_SKIP_WITHOUT_SHARED_DATA();
  for (const DataFile& file : DataFiles()) {
    ASSERT_EQ(Imported(file.name).size(), file.rows) << file.name;
    for (const Record& r : Imported(file.name)) {
      auto ast = Plugin().Lower(r.task, r.intrinsic, r.schedule, r.hardware);
      ASSERT_TRUE(ast.ok()) << ast.status().message();
      auto tokens = Featurize(*ast, r.hardware, Intrinsic(r.intrinsic));
      ASSERT_TRUE(tokens.ok()) << r.task.key << ": " << tokens.status().message();
      EXPECT_EQ(tokens->num_tokens, static_cast<int>(Stages(*ast).size()) + 2);
      ASSERT_EQ(tokens->values.size(), static_cast<size_t>(tokens->num_tokens) * kFeatureDim);
      for (float v : tokens->values) ASSERT_TRUE(std::isfinite(v)) << r.task.key;
    }
  }
}

// Occupancy per compute capability, against the CUDA Programming Guide's
// limits worked by hand: 128 threads, 48 KiB of shared memory (3 stages of
// 128x128x32 f16 tiles) and 128 registers a thread allow 4 blocks by
// registers everywhere; threads and shared memory per SM decide the rest.
TEST(TensorCoreArchitectures, OccupancyFollowsEachArchitecturesLimits) {
  const std::map<std::string, int64_t> expected = {
      {"sm_75", 1},   // 64 KiB per SM, no reserve: 65536 / 49152
      {"sm_80", 3},   // 164 KiB: 167936 / (49152 + 1024)
      {"sm_86", 2},   // 100 KiB: 102400 / 50176
      {"sm_89", 2},   // as sm_86
      {"sm_90", 4}};  // 228 KiB: 233472 / 50176
  ASSERT_EQ(tensorcore::KnownArchitectures().size(), expected.size());
  for (const auto& arch : tensorcore::KnownArchitectures())
    EXPECT_EQ(tensorcore::ResidentBlocks(128, 49152, 128, arch), expected.at(arch.flag)) << arch.flag;
}

// The kernel-wide template values (every stage carries the same).
std::vector<float> TemplateValuesOf(const ProgramAst& ast) {
  const auto stages = Stages(ast);
  return stages.empty() ? std::vector<float>{}
                        : std::vector<float>(stages[0]->template_values.begin(), stages[0]->template_values.end());
}

// A program lowers on every architecture that has its instruction, with the
// occupancy of that architecture in its tokens; sm_75 has no m16n8k16.
TEST(TensorCoreArchitectures, LoweringReadsTheRecordsArchitecture) {
  auto suite = Plugin().Tasks("resnet50", "tensorcore.h16816");
  ASSERT_TRUE(suite.ok());
  auto schedules = Plugin().SampleSchedules(suite->front(), "tensorcore.h16816", 1, 1);
  ASSERT_TRUE(schedules.ok());
  std::map<std::string, std::vector<float>> template_values;
  for (const auto& arch : tensorcore::KnownArchitectures()) {
    HardwareParams hw = Plugin().Target().hardware;
    hw.flags = {arch.flag, "mma.sync"};
    auto ast = Plugin().Lower(suite->front(), "tensorcore.h16816", schedules->front(), hw);
    if (arch.compute_capability < 80) {
      ASSERT_FALSE(ast.ok()) << arch.flag;
      EXPECT_NE(ast.status().message().find("tensorcore.h16816 (mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16) "
                                            "needs sm_80, which sm_75 (Turing) is not"),
                std::string::npos)
          << ast.status().message();
      continue;
    }
    ASSERT_TRUE(ast.ok()) << arch.flag << ": " << ast.status().message();
    template_values[arch.flag] = TemplateValuesOf(*ast);
  }
  EXPECT_NE(template_values["sm_80"], template_values["sm_86"]);  // more shared memory per SM
  EXPECT_EQ(template_values["sm_86"].size(), template_values["sm_90"].size());
  // The sm_75 intrinsics lower there.
  auto turing = Plugin().Tasks("resnet50", "tensorcore.h1688");
  ASSERT_TRUE(turing.ok());
  auto s75 = Plugin().SampleSchedules(turing->front(), "tensorcore.h1688", 8, 2);
  ASSERT_TRUE(s75.ok());
  HardwareParams hw = Plugin().Target().hardware;
  hw.flags = {"sm_75"};
  int lowered = 0;
  for (const auto& schedule : *s75) lowered += Plugin().Lower(turing->front(), "tensorcore.h1688", schedule, hw).ok();
  EXPECT_GT(lowered, 0) << "no sampled h1688 schedule fits an sm_75 SM";
}

}  // namespace
