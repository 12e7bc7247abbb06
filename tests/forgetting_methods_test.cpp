// Every forgetting method of add-intrinsic end to end, through a real RocksDB
// registry and libucmoh: two intrinsics learned in sequence; the stored
// Fisher snapshots and the configured λ checked; the version pulled; an online
// update from the pulled directory equal to the same update through the
// registry; and the update's EWC penalty non-zero exactly where the method
// has one. Real plugins, real CUTLASS rows, short real training.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "real_registry_fixture.h"
#include "shared_data.h"
#include "ucmoh/record_json.h"
#include "ucmoh/registry/registry_ops.h"
#include "ucmoh/registry/version_update.h"
#include "ucmoh/ucmoh.h"

namespace ucmoh::registry {
namespace {

constexpr double kLambda = 5.0;

LifelongStepOptions SmallStep(LifelongMethod method) {
  LifelongStepOptions o;
  o.method = method;
  if (MethodUsesEwc(method)) o.lambda = kLambda;
  o.network.hidden = 16;
  o.network.heads = 4;
  o.training.epochs = 2;
  o.training.seed = 5;
  o.rehearsal_programs = 24;
  return o;
}

// A libucmoh handle, closed on scope exit.
struct Model {
  ucmoh_model* handle = nullptr;
  ~Model() { ucmoh_close(handle); }
  nlohmann::json Info() const {
    const char* text = nullptr;
    EXPECT_EQ(ucmoh_info(handle, &text), UCMOH_OK) << ucmoh_last_error();
    return nlohmann::json::parse(text ? text : "null");
  }
  std::vector<float> Score(const std::string& records) const {
    std::vector<float> scores(4096);
    size_t count = 0;
    EXPECT_EQ(ucmoh_score(handle, UCMOH_FORMAT_RECORDS, records.data(), records.size(), scores.data(), scores.size(),
                          &count),
              UCMOH_OK)
        << ucmoh_last_error();
    scores.resize(count);
    return scores;
  }
  void Update(const std::string& records) const {
    ASSERT_EQ(ucmoh_update(handle, UCMOH_FORMAT_RECORDS, records.data(), records.size(), nullptr, 0, 2), UCMOH_OK)
        << ucmoh_last_error();
  }
};

class ForgettingMethods : public testing::RealRegistryTest, public ::testing::WithParamInterface<LifelongMethod> {
 protected:
  ForgettingMethods() : RealRegistryTest("forgetting_methods") {}

  void SetUp() override { OpenRegistryWithCutlassInt8(); }

  // The measured batch of an online update: one task's records of the second intrinsic.
  std::string OneTaskRecords() {
    auto records = store_->ReadRecords("tensorcore.i16832");
    EXPECT_TRUE(records.ok());
    std::string text, task;
    for (const auto& r : *records) {
      if (task.empty()) task = r.task.key;
      if (r.task.key == task) text += RecordToJsonLine(r) + "\n";
    }
    return text;
  }
};

TEST_P(ForgettingMethods, LearnsStoresPullsAndUpdatesUnderItsPenalty) {
  const LifelongMethod method = GetParam();
  const bool ewc = MethodUsesEwc(method);
  AddIntrinsicOptions o;
  o.step = SmallStep(method);
  for (const char* name : {"tensorcore.i8816", "tensorcore.i16832"}) {
    auto r = AddIntrinsic(*store_, *plugins_, name, o);
    ASSERT_TRUE(r.ok()) << name << ": " << r.status().message();
  }
  // One Fisher snapshot per learned intrinsic where the method has EWC, none otherwise.
  for (int64_t v : {1, 2}) {
    auto snapshots = store_->ListSnapshots(v);
    ASSERT_TRUE(snapshots.ok());
    EXPECT_EQ(snapshots->size(), ewc ? static_cast<size_t>(v) : 0u) << "version " << v;
    for (const auto& s : *snapshots) {
      auto bytes = store_->GetBlob(s.blob_sha256);
      ASSERT_TRUE(bytes.ok()) << s.name;
      EXPECT_TRUE(DeserializeSnapshot(*bytes).ok()) << s.name;
    }
  }
  // λ as configured on every version (a first step applies none, and says so).
  for (int64_t v : {1, 2}) {
    auto version = store_->GetVersion(v);
    ASSERT_TRUE(version.ok());
    auto read = StepOptionsOf(*version);
    ASSERT_TRUE(read.ok()) << read.status().message();
    EXPECT_EQ(read->method, method);
    EXPECT_EQ(read->lambda, o.step.lambda) << "version " << v;
    EXPECT_EQ(read->rehearsal_programs, o.step.rehearsal_programs);
    EXPECT_EQ(version->hyper_parameters.count("lambda_used"), ewc && v == 2 ? 1u : 0u) << "version " << v;
  }
  const std::string pulled = dir_.Sub("pulled");
  ASSERT_TRUE(PullVersion(*store_, "ucmoh@1", pulled).ok());
  const std::string batch = OneTaskRecords();
  store_.reset();  // libucmoh opens the registry itself

  // Version 1 (one intrinsic learned, so an EWC method has a snapshot to keep).
  const std::string plugins_json = std::string(UCMOH_SOURCE_DIR) + "/plugins.json";
  Model from_registry, from_pulled;
  ASSERT_EQ(ucmoh_open_registry(dir_.Sub("r.db").c_str(), "ucmoh@1", plugins_json.c_str(), &from_registry.handle),
            UCMOH_OK)
      << ucmoh_last_error();
  ASSERT_EQ(ucmoh_open_pulled(pulled.c_str(), plugins_json.c_str(), &from_pulled.handle), UCMOH_OK)
      << ucmoh_last_error();
  ASSERT_NO_FATAL_FAILURE(from_registry.Update(batch));
  ASSERT_NO_FATAL_FAILURE(from_pulled.Update(batch));
  EXPECT_EQ(from_registry.Score(batch), from_pulled.Score(batch)) << "the pulled update differs from the registry's";
  nlohmann::json last = from_registry.Info()["last_update"];
  ASSERT_TRUE(last.is_object()) << from_registry.Info().dump();
  EXPECT_EQ(last["method"], LifelongMethodName(method));
  if (ewc) {
    EXPECT_EQ(last["lambda"], kLambda);
    EXPECT_GT(last["penalty"].get<double>(), 0) << "an EWC update of version 1 must weigh its snapshot";
  } else {
    EXPECT_EQ(last["penalty"].get<double>(), 0);
  }
  EXPECT_EQ(last["replayed_programs"].get<int64_t>() > 0, MethodReplays(method));
  nlohmann::json pulled_last = from_pulled.Info()["last_update"];
  last.erase("seconds");
  pulled_last.erase("seconds");
  EXPECT_EQ(pulled_last, last);
}

INSTANTIATE_TEST_SUITE_P(AddIntrinsic, ForgettingMethods,
                         ::testing::Values(LifelongMethod::kReplay, LifelongMethod::kEwcReplay, LifelongMethod::kEwc,
                                           LifelongMethod::kOnlineEwc, LifelongMethod::kFinetune),
                         [](const auto& info) {
                           std::string name = LifelongMethodName(info.param);
                           for (char& c : name)
                             if (c == '+' || c == '-') c = '_';
                           return name;
                         });

}  // namespace
}  // namespace ucmoh::registry

namespace ucmoh::registry {
namespace {

class DivergedStep : public testing::RealRegistryTest {
 protected:
  DivergedStep() : RealRegistryTest("diverged_step") {}
};

// A step whose loss goes non-finite is refused whole: no version, no snapshot.
TEST_F(DivergedStep, IsRefusedAndCommitsNothing) {
  OpenRegistryWithCutlassInt8();
  if (IsSkipped() || HasFatalFailure()) return;
  AddIntrinsicOptions o;
  o.step = SmallStep(LifelongMethod::kEwcReplay);
  o.step.training.learning_rate = 1e30;
  auto r = AddIntrinsic(*store_, *plugins_, "tensorcore.i8816", o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("training diverged"), std::string::npos) << r.status().message();
  auto versions = store_->ListVersions();
  ASSERT_TRUE(versions.ok());
  EXPECT_TRUE(versions->empty());
}

}  // namespace
}  // namespace ucmoh::registry

namespace ucmoh::registry {
namespace {

// A λ of 0 configured on an EWC method is kept; only versions from before the
// options were stored as configured (no "step_options" key) read a stored 0
// as the default λ, since theirs was the λ a first step applied.
TEST(StepOptionsOf, ReadsLambdaAsConfiguredAndOlderVersionsAsTheyMeantIt) {
  LifelongStepOptions o;
  o.method = LifelongMethod::kEwc;
  o.lambda = 0;
  ModelVersion current;
  current.hyper_parameters = StepOptionsToParams(o);
  current.hyper_parameters["step_options"] = int64_t{2};
  auto read = StepOptionsOf(current);
  ASSERT_TRUE(read.ok()) << read.status().message();
  EXPECT_EQ(read->lambda, 0.0);
  ModelVersion older;
  older.hyper_parameters = {{"method", std::string("ewc")}, {"lambda", 0.0}};
  read = StepOptionsOf(older);
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(read->lambda, LifelongStepOptions{}.lambda);
  older.hyper_parameters["lambda"] = std::string("high");
  EXPECT_FALSE(StepOptionsOf(older).ok()) << "a mistyped option must be an error";
}

}  // namespace
}  // namespace ucmoh::registry
