// The lifelong step's one option list (lifelong_step_options.h): every option
// survives hyper-parameters and JSON unchanged, mistyped values are refused by
// key, and options the method would ignore are refused by flag or key.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "ucmoh/lifelong_step_options.h"

namespace ucmoh {
namespace {

LifelongStepOptions NonDefault() {
  LifelongStepOptions o;
  o.method = LifelongMethod::kOnlineEwc;
  o.lambda = 7.5;
  o.lambda_grid = {0.1, 1, 10};
  o.gamma = 0.9;
  o.rehearsal_programs = 99;
  o.rehearsal_seed = 4;
  o.refit_normalizer = true;
  o.keep_weights = 0.25;
  o.training.epochs = 11;
  o.training.learning_rate = 3e-4;
  o.training.patience = 3;
  o.training.seed = 12;
  o.network.hidden = 32;
  o.network.heads = 2;
  return o;
}

TEST(LifelongStepOptions, EveryOptionRoundTripsThroughHyperParameters) {
  const LifelongStepOptions o = NonDefault();
  LifelongStepOptions read;
  ASSERT_TRUE(StepOptionsFromParams(StepOptionsToParams(o), &read).ok());
  EXPECT_EQ(StepOptionsToJson(read), StepOptionsToJson(o));
  EXPECT_NE(StepOptionsToJson(LifelongStepOptions{}), StepOptionsToJson(o)) << "NonDefault() changes nothing";
}

TEST(LifelongStepOptions, EveryOptionRoundTripsThroughJson) {
  const LifelongStepOptions o = NonDefault();
  LifelongStepOptions read;
  std::set<std::string> given;
  ASSERT_TRUE(StepOptionsFromJson(StepOptionsToJson(o), &read, &given).ok());
  EXPECT_EQ(StepOptionsToJson(read), StepOptionsToJson(o));
  size_t options = 0;
  VisitStepOptions(o, [&](const StepOption&, const auto&) { ++options; });
  EXPECT_EQ(given.size(), options);
}

TEST(LifelongStepOptions, MistypedValuesNameTheirKey) {
  LifelongStepOptions o;
  std::set<std::string> given;
  Status s = StepOptionsFromJson(nlohmann::json{{"epochs", "ten"}}, &o, &given);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("'epochs'"), std::string::npos) << s.message();
  s = StepOptionsFromJson(nlohmann::json{{"lambda_grid", {1, "x"}}}, &o, &given);
  EXPECT_NE(s.message().find("'lambda_grid'"), std::string::npos) << s.message();
  s = StepOptionsFromJson(nlohmann::json{{"method", "sgd"}}, &o, &given);
  EXPECT_NE(s.message().find("unknown lifelong method 'sgd'"), std::string::npos) << s.message();
  s = StepOptionsFromParams(ParamMap{{"lambda_grid", std::string("1,x")}}, &o);
  EXPECT_NE(s.message().find("'lambda_grid'"), std::string::npos) << s.message();
  s = StepOptionsFromParams(ParamMap{{"seed", std::string("3")}}, &o);
  EXPECT_NE(s.message().find("seed"), std::string::npos) << s.message();
}

TEST(LifelongStepOptions, OptionsTheMethodIgnoresAreRefused) {
  LifelongStepOptions o;  // replay
  Status s = CheckGivenStepOptions(o, {"lambda"}, /*as_flags=*/true);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message().rfind("--lambda: method 'replay' has no EWC penalty", 0), 0u) << s.message();
  s = CheckGivenStepOptions(o, {"lambda_grid"}, /*as_flags=*/false);
  EXPECT_EQ(s.message().rfind("lambda_grid: method 'replay'", 0), 0u) << s.message();
  o.method = LifelongMethod::kEwcReplay;
  EXPECT_TRUE(CheckGivenStepOptions(o, {"lambda", "lambda_grid", "epochs"}, true).ok());
  s = CheckGivenStepOptions(o, {"gamma"}, true);
  EXPECT_NE(s.message().find("--gamma: only online-ewc"), std::string::npos) << s.message();
  o.method = LifelongMethod::kOnlineEwc;
  EXPECT_TRUE(CheckGivenStepOptions(o, {"gamma", "lambda"}, true).ok());
}

}  // namespace
}  // namespace ucmoh
