// registry pull's TorchScript module (registry/src/torchscript_export.cpp, a
// second, hand-written copy of the network) against CostModel::Predict, for
// every network configuration the CLI can train (export_check/export_cases.cpp):
// each is trained briefly on real programs, committed as a registry version
// and pulled with PullVersion; torch::jit::load(model.pt) must score several
// hundred programs of every intrinsic with data (the four committed x86 ones
// and the six CUTLASS tensor-core ones) like Predict: within
// kRelativeTolerance of the score scale and in the same ranking.
// tests/check_pulled_model.py makes the same check in Python.
#include <gtest/gtest.h>

#include "ucmoh/torchscript_export.h"
#include <torch/script.h>
#include <torch/torch.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <numeric>

#include "ci_skip.h"
#include "export_check/export_cases.h"
#include "export_check/sample_records.h"
#include "export_check/score_agreement.h"
#include "export_check/trained_version.h"
#include "token_batch.h"
#include "ucmoh/registry/registry_ops.h"

namespace ucmoh::testing {

// gtest prints a failing case by its name, not its bytes.
void PrintTo(const ExportCase& c, std::ostream* os) { *os << c.name; }

namespace {

namespace fs = std::filesystem;

constexpr size_t kProgramsPerIntrinsic = 300;

struct SharedData {
  Status status;
  PluginSet plugins;
  SampleRecords sample;
  std::map<std::string, ProgramSet> sets;  // per intrinsic
};

Status LoadData(SharedData* d) {
  auto plugins = LoadPlugins(std::string(UCMOH_SOURCE_DIR) + "/plugins.json");
  if (!plugins.ok()) return plugins.status();
  d->plugins = std::move(*plugins);
  auto sample = LoadSampleRecords(d->plugins, kProgramsPerIntrinsic);
  if (!sample.ok()) return sample.status();
  d->sample = std::move(*sample);
  auto sets = FeaturizeSample(d->plugins, d->sample);
  if (!sets.ok()) return sets.status();
  d->sets = std::move(*sets);
  return Status::Ok();
}

// Plugins, the sample and its programs: loaded once for every test.
const SharedData& Data() {
  static const SharedData data = [] {
    SharedData d;
    d.status = LoadData(&d);
    return d;
  }();
  return data;
}

std::string WorkDir() {
  static const std::string dir = [] {
    auto p = fs::temp_directory_path() / ("ucmoh_torchscript_export_test_" + std::to_string(::getpid()));
    fs::remove_all(p);
    fs::create_directories(p);
    return p.string();
  }();
  return dir;
}

// Removes the work folder after the run unless a test failed (then it is
// kept, with the registries and pulled models, for a look).
class RemoveWorkDir : public ::testing::Environment {
 public:
  void TearDown() override {
    if (!::testing::UnitTest::GetInstance()->Failed()) fs::remove_all(WorkDir());
  }
};
const auto* const kRemoveWorkDir = ::testing::AddGlobalTestEnvironment(new RemoveWorkDir);

// The module's scores for every program of `set` in one batch, padded to the
// set's longest program (Predict pads per length-sorted batch instead).
std::vector<float> ModuleScores(torch::jit::Module& module, const ProgramSet& set) {
  std::vector<int32_t> all(set.size());
  std::iota(all.begin(), all.end(), 0);
  const TokenBatch batch = MakeTokenBatch(set, all);
  torch::NoGradGuard no_grad;
  auto out = module.forward({batch.tokens, batch.valid}).toTensor().contiguous();
  return std::vector<float>(out.data_ptr<float>(), out.data_ptr<float>() + out.numel());
}

void ExpectManifestNetwork(const std::string& path, const NetworkConfig& n) {
  const auto network = nlohmann::json::parse(std::ifstream(path)).at("network");
  EXPECT_EQ(network.at("architecture"), "ucmoh");
  EXPECT_EQ(network.at("hidden"), n.hidden);
  EXPECT_EQ(network.at("heads"), n.heads);
  EXPECT_EQ(network.at("encoder_layers"), n.encoder_layers);
  EXPECT_EQ(network.at("fc_blocks"), n.fc_blocks);
}

class PulledModel : public ::testing::TestWithParam<ExportCase> {};

TEST_P(PulledModel, ScoresEveryIntrinsicLikePredict) {
  const SharedData& data = Data();
  ASSERT_TRUE(data.status.ok()) << data.status.message();
  const ExportCase& c = GetParam();
  const std::string dir = WorkDir() + "/" + c.name;
  auto version = WriteTrainedVersion(dir + "/registry.db", c, data.sets);
  ASSERT_TRUE(version.ok()) << version.status().message();
  auto store = registry::RegistryStore::Open(dir + "/registry.db", registry::OpenMode::kReadOnly);
  ASSERT_TRUE(store.ok()) << store.status().message();
  auto pulled = registry::PullVersion(**store, "ucmoh@latest", dir + "/pulled");
  ASSERT_TRUE(pulled.ok()) << pulled.status().message();
  ExpectManifestNetwork(pulled->manifest_path, c.network);
  auto module = torch::jit::load(pulled->model_path);
  module.eval();
  for (const auto& [intrinsic, set] : data.sets) {
    auto expected = version->model.Predict(set);
    ASSERT_TRUE(expected.ok()) << expected.status().message();
    const ScoreAgreement a = CompareScores(*expected, ModuleScores(module, set));
    std::cout << "[ scores   ] " << c.name << " " << intrinsic << ": " << a.Describe() << "\n";
    EXPECT_TRUE(a.ok()) << c.name << " on " << intrinsic << ": " << a.Describe();
  }
}

INSTANTIATE_TEST_SUITE_P(CliConfigurations, PulledModel, ::testing::ValuesIn(ExportCases()),
                         [](const auto& info) { return info.param.name; });

// The sample covers every intrinsic with data, with several hundred programs
// each (all of them where an intrinsic has fewer).
TEST(PulledModelSample, CoversTheX86Intrinsics) {
  const SharedData& data = Data();
  ASSERT_TRUE(data.status.ok()) << data.status.message();
  for (const char* intrinsic : {"x86.avx2", "x86.avx512", "x86.vnni", "x86.bf16"}) {
    ASSERT_TRUE(data.sets.count(intrinsic)) << intrinsic;
    EXPECT_EQ(data.sets.at(intrinsic).size(), kProgramsPerIntrinsic) << intrinsic;
  }
}

TEST(PulledModelSample, CoversTheTensorCoreIntrinsics) {
  const SharedData& data = Data();
  ASSERT_TRUE(data.status.ok()) << data.status.message();
  if (!data.sample.cutlass_present) UCMOH_SKIP_OR_FAIL_IN_CI("no CUTLASS data at " + data.sample.cutlass_dir);
  const LoadedPlugin* tensorcore = data.plugins.ForTarget("tensorcore");
  ASSERT_NE(tensorcore, nullptr);
  EXPECT_EQ(tensorcore->intrinsics.size(), 6u);
  for (const auto& info : tensorcore->intrinsics) {
    ASSERT_TRUE(data.sets.count(info.name)) << info.name << " has no CUTLASS programs";
    EXPECT_GE(data.sets.at(info.name).size(), 150u) << info.name;
  }
}

TEST(PulledModelSample, MlpBaselineIsRefused) {
  NetworkConfig mlp;
  mlp.architecture = "mlp";
  auto model = CostModel::Create(mlp);
  ASSERT_TRUE(model.ok());
  const Status s = ExportTorchScript(*model, WorkDir() + "/mlp.pt");
  EXPECT_EQ(s.code(), Status::Code::kUnsupported) << s.message();
  EXPECT_FALSE(fs::exists(WorkDir() + "/mlp.pt"));
}

}  // namespace
}  // namespace ucmoh::testing
