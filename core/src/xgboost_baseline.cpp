// The XGBoost baseline through the C API. Every handle lives in an RAII
// owner and every non-zero return code becomes a Status carrying
// XGBGetLastError(), so no XGBoost failure escapes as a crash or a leak.
#include "ucmoh/xgboost_baseline.h"

#include <xgboost/c_api.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <limits>
#include <sstream>

#include "ucmoh/features.h"
#include "ucmoh/flat_features.h"
#include "ucmoh/metrics.h"

namespace ucmoh {

namespace {

// Attribute keys stored inside the booster, so one file is the whole model.
constexpr const char* kAttrObjective = "ucmoh_objective";
constexpr const char* kAttrMaxTokens = "ucmoh_max_tokens";
constexpr const char* kAttrSchemaVersion = "ucmoh_feature_schema_version";
constexpr const char* kAttrFeatureDim = "ucmoh_feature_dim";

Status Check(int rc, const std::string& what) {
  if (rc == 0) return Status::Ok();
  return Status::Internal("XGBoost " + what + " failed: " + XGBGetLastError());
}

struct DMatrixFree {
  void operator()(void* handle) const { XGDMatrixFree(handle); }
};
using DMatrix = std::unique_ptr<void, DMatrixFree>;

// Rows of a DMatrix; NaN marks missing values, so zero padding stays a real zero.
Expected<DMatrix> MakeDMatrix(const std::vector<float>& rows, size_t num_rows, int width, int nthread) {
  DMatrixHandle handle = nullptr;
  UCMOH_RETURN_IF_ERROR(Check(XGDMatrixCreateFromMat_omp(rows.data(), num_rows, width,
                                                         std::numeric_limits<float>::quiet_NaN(),
                                                         &handle, nthread),
                              "creating a data matrix"));
  return DMatrix(handle);
}

Status SetFloatInfo(const DMatrix& matrix, const char* field, const std::vector<float>& values) {
  return Check(XGDMatrixSetFloatInfo(matrix.get(), field, values.data(), values.size()),
               std::string("setting '") + field + "'");
}

// Training rows must be contiguous per task for XGBoost's query groups.
std::vector<int32_t> TaskContiguousOrder(const ProgramSet& set) {
  std::vector<int32_t> order;
  order.reserve(set.size());
  for (const auto& group : set.tasks) order.insert(order.end(), group.programs.begin(), group.programs.end());
  return order;
}

Expected<DMatrix> MakeTrainingMatrix(const ProgramSet& train, XgbObjective objective, int max_tokens,
                                     int nthread) {
  const auto order = TaskContiguousOrder(train);
  const ProgramSet ordered = train.Subset(order);
  auto matrix = MakeDMatrix(FlattenProgramSet(ordered, max_tokens), ordered.size(),
                            FlatFeatureWidth(max_tokens), nthread);
  if (!matrix.ok()) return matrix.status();
  const std::vector<float> labels = ordered.Labels();
  UCMOH_RETURN_IF_ERROR(SetFloatInfo(*matrix, "label", labels));
  if (objective == XgbObjective::kRank) {
    std::vector<unsigned> groups;
    for (const auto& group : ordered.tasks) groups.push_back(static_cast<unsigned>(group.programs.size()));
    UCMOH_RETURN_IF_ERROR(Check(XGDMatrixSetUIntInfo(matrix->get(), "group", groups.data(), groups.size()),
                                "setting query groups"));
  } else {
    // MetaSchedule weights each program's squared error by its throughput,
    // so the fast programs (the ones a tuner cares about) are fit best.
    UCMOH_RETURN_IF_ERROR(SetFloatInfo(*matrix, "weight", labels));
  }
  return matrix;
}

std::vector<std::pair<std::string, std::string>> TvmParams(const XgbOptions& options) {
  std::vector<std::pair<std::string, std::string>> params = {
      {"verbosity", "0"},
      {"disable_default_eval_metric", "1"},
      {"subsample", "1.0"},
      {"tree_method", options.tree_method},
      {"seed", std::to_string(options.seed % 2147483647ULL)},
  };
  if (options.nthread > 0) params.push_back({"nthread", std::to_string(options.nthread)});
  if (options.objective == XgbObjective::kRank) {  // tvm/autotvm/tuner/xgboost_cost_model.py
    params.insert(params.end(), {{"objective", "rank:pairwise"}, {"max_depth", "3"},
                                 {"gamma", "0.0001"}, {"min_child_weight", "1"}, {"eta", "0.3"},
                                 {"lambda", "1"}, {"alpha", "0"}});
  } else {  // tvm/meta_schedule/cost_model/xgb_model.py
    params.insert(params.end(), {{"objective", "reg:squarederror"}, {"max_depth", "10"},
                                 {"gamma", "0.001"}, {"min_child_weight", "0"}, {"eta", "0.2"}});
  }
  return params;
}

Expected<std::vector<float>> PredictMatrix(BoosterHandle booster, const DMatrix& matrix, size_t rows) {
  const char* config =
      R"({"type": 0, "training": false, "iteration_begin": 0, "iteration_end": 0, "strict_shape": false})";
  const bst_ulong* shape = nullptr;
  bst_ulong dims = 0;
  const float* result = nullptr;
  UCMOH_RETURN_IF_ERROR(
      Check(XGBoosterPredictFromDMatrix(booster, matrix.get(), config, &shape, &dims, &result), "predicting"));
  if (dims != 1 || shape[0] != rows)
    return Status::Internal("XGBoost predicted an unexpected shape for " + std::to_string(rows) + " rows");
  return std::vector<float>(result, result + rows);
}

Expected<std::string> GetAttr(BoosterHandle booster, const char* key, const std::string& where) {
  const char* value = nullptr;
  int found = 0;
  UCMOH_RETURN_IF_ERROR(Check(XGBoosterGetAttr(booster, key, &value, &found), "reading attribute"));
  if (!found)
    return Status::Corruption(where + ": not a UCMoH XGBoost model (attribute '" + key + "' is missing)");
  return std::string(value);
}

Expected<int> GetIntAttr(BoosterHandle booster, const char* key, const std::string& where) {
  auto text = GetAttr(booster, key, where);
  if (!text.ok()) return text.status();
  try {
    return std::stoi(*text);
  } catch (const std::exception&) {
    return Status::Corruption(where + ": attribute '" + key + "' is not a number: '" + *text + "'");
  }
}

Status WriteFileAtomically(const std::string& path, const char* data, size_t size) {
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) return Status::IOError("cannot write " + temporary);
    out.write(data, static_cast<std::streamsize>(size));
    if (!out.flush()) return Status::IOError("cannot write " + temporary);
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0)
    return Status::IOError("cannot rename " + temporary + " to " + path);
  return Status::Ok();
}

}  // namespace

struct XgbModel::Booster {
  BoosterHandle handle = nullptr;
  ~Booster() {
    if (handle) XGBoosterFree(handle);
  }
};

namespace {

Expected<std::unique_ptr<XgbModel::Booster>> NewBooster(const DMatrix* cache) {
  auto booster = std::make_unique<XgbModel::Booster>();
  DMatrixHandle handles[1] = {cache ? cache->get() : nullptr};
  UCMOH_RETURN_IF_ERROR(Check(XGBoosterCreate(handles, cache ? 1 : 0, &booster->handle), "creating a booster"));
  return booster;
}

}  // namespace

Expected<XgbObjective> ParseXgbObjective(const std::string& name) {
  if (name == "rank") return XgbObjective::kRank;
  if (name == "reg") return XgbObjective::kReg;
  return Status::InvalidArgument("unknown XGBoost objective '" + name + "' (expected rank or reg)");
}

const char* XgbObjectiveName(XgbObjective objective) {
  return objective == XgbObjective::kRank ? "rank" : "reg";
}

XgbModel::XgbModel(std::unique_ptr<Booster> booster, XgbObjective objective, int max_tokens, int rounds)
    : booster_(std::move(booster)), objective_(objective), max_tokens_(max_tokens), rounds_(rounds) {}
XgbModel::XgbModel(XgbModel&&) noexcept = default;
XgbModel& XgbModel::operator=(XgbModel&&) noexcept = default;
XgbModel::~XgbModel() = default;

Expected<std::vector<float>> XgbModel::Predict(const ProgramSet& set) const {
  if (!booster_) return Status::InvalidArgument("this XGBoost model was moved from");
  if (set.size() == 0) return std::vector<float>{};
  auto matrix = MakeDMatrix(FlattenProgramSet(set, max_tokens_), set.size(), FlatFeatureWidth(max_tokens_), 0);
  if (!matrix.ok()) return matrix.status();
  return PredictMatrix(booster_->handle, *matrix, set.size());
}

Status XgbModel::Save(const std::string& path) const {
  if (!booster_) return Status::InvalidArgument("this XGBoost model was moved from");
  bst_ulong size = 0;
  const char* bytes = nullptr;
  UCMOH_RETURN_IF_ERROR(
      Check(XGBoosterSaveModelToBuffer(booster_->handle, R"({"format": "ubj"})", &size, &bytes), "saving"));
  return WriteFileAtomically(path, bytes, size);
}

Expected<XgbModel> XgbModel::Load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::NotFound("cannot open XGBoost model " + path);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto booster = NewBooster(nullptr);
  if (!booster.ok()) return booster.status();
  BoosterHandle handle = (*booster)->handle;
  UCMOH_RETURN_IF_ERROR(
      Check(XGBoosterLoadModelFromBuffer(handle, bytes.data(), bytes.size()), "loading " + path));

  auto objective_name = GetAttr(handle, kAttrObjective, path);
  if (!objective_name.ok()) return objective_name.status();
  auto objective = ParseXgbObjective(*objective_name);
  if (!objective.ok()) return objective.status().WithContext(path);
  auto max_tokens = GetIntAttr(handle, kAttrMaxTokens, path);
  auto schema = GetIntAttr(handle, kAttrSchemaVersion, path);
  auto dim = GetIntAttr(handle, kAttrFeatureDim, path);
  for (const auto* field : {&max_tokens, &schema, &dim})
    if (!field->ok()) return field->status();
  if (*schema != kFeatureSchemaVersion || *dim != kFeatureDim)
    return Status::InvalidArgument(path + ": trained on feature schema " + std::to_string(*schema) + " (" +
                                   std::to_string(*dim) + " dims) but this build has schema " +
                                   std::to_string(kFeatureSchemaVersion) + " (" + std::to_string(kFeatureDim) +
                                   " dims); retrain the baseline");
  int rounds = 0;
  UCMOH_RETURN_IF_ERROR(Check(XGBoosterBoostedRounds(handle, &rounds), "counting rounds"));
  return XgbModel(std::move(booster).value(), *objective, *max_tokens, rounds);
}

namespace {

// Best-validation-PCA bookkeeping for early stopping.
struct EarlyStopping {
  int patience = 0;
  double best_pca = -1;
  int best_round = -1;
  bool Improved(int round, double pca) {
    if (pca <= best_pca) return false;
    best_pca = pca;
    best_round = round;
    return true;
  }
  bool ShouldStop(int round) const { return round - best_round >= patience; }
};

Status SetParams(BoosterHandle booster, const XgbOptions& options) {
  for (const auto& [key, value] : TvmParams(options))
    UCMOH_RETURN_IF_ERROR(Check(XGBoosterSetParam(booster, key.c_str(), value.c_str()), "setting " + key));
  return Status::Ok();
}

Status SetModelAttrs(BoosterHandle booster, XgbObjective objective, int max_tokens) {
  const std::pair<const char*, std::string> attrs[] = {
      {kAttrObjective, XgbObjectiveName(objective)},
      {kAttrMaxTokens, std::to_string(max_tokens)},
      {kAttrSchemaVersion, std::to_string(kFeatureSchemaVersion)},
      {kAttrFeatureDim, std::to_string(kFeatureDim)},
  };
  for (const auto& [key, value] : attrs)
    UCMOH_RETURN_IF_ERROR(Check(XGBoosterSetAttr(booster, key, value.c_str()), "setting attribute"));
  return Status::Ok();
}

// Keeps the first `rounds` trees (XGBoost returns a new booster).
Status KeepFirstRounds(XgbModel::Booster& booster, int rounds) {
  BoosterHandle sliced = nullptr;
  UCMOH_RETURN_IF_ERROR(Check(XGBoosterSlice(booster.handle, 0, rounds, 1, &sliced), "slicing"));
  XGBoosterFree(booster.handle);
  booster.handle = sliced;
  return Status::Ok();
}

}  // namespace

Expected<XgbModel> TrainXgb(const ProgramSet& train, const XgbOptions& options, const ProgramSet* validation) {
  if (train.size() == 0) return Status::InvalidArgument("cannot train XGBoost on an empty program set");
  if (options.rounds < 1) return Status::InvalidArgument("XGBoost needs at least one round");
  const int max_tokens = options.max_tokens > 0 ? options.max_tokens : train.max_tokens();
  auto dtrain = MakeTrainingMatrix(train, options.objective, max_tokens, options.nthread);
  if (!dtrain.ok()) return dtrain.status();
  auto booster = NewBooster(&*dtrain);
  if (!booster.ok()) return booster.status();
  BoosterHandle handle = (*booster)->handle;
  UCMOH_RETURN_IF_ERROR(SetParams(handle, options));

  const bool stop_early = validation && validation->size() > 0 && options.early_stopping_rounds > 0;
  DMatrix dvalid;
  if (stop_early) {
    auto matrix = MakeDMatrix(FlattenProgramSet(*validation, max_tokens), validation->size(),
                              FlatFeatureWidth(max_tokens), options.nthread);
    if (!matrix.ok()) return matrix.status();
    dvalid = std::move(matrix).value();
  }

  EarlyStopping stopping{options.early_stopping_rounds};
  int rounds = 0;
  for (int round = 0; round < options.rounds; ++round) {
    UCMOH_RETURN_IF_ERROR(Check(XGBoosterUpdateOneIter(handle, round, dtrain->get()),
                                "boosting round " + std::to_string(round)));
    rounds = round + 1;
    if (!stop_early) continue;
    auto scores = PredictMatrix(handle, dvalid, validation->size());
    if (!scores.ok()) return scores.status();
    stopping.Improved(round, EvaluateRanking(*validation, *scores).pca);
    if (stopping.ShouldStop(round)) break;
  }
  if (stop_early && stopping.best_round + 1 < rounds) {
    rounds = stopping.best_round + 1;
    UCMOH_RETURN_IF_ERROR(KeepFirstRounds(**booster, rounds));
  }
  UCMOH_RETURN_IF_ERROR(SetModelAttrs((*booster)->handle, options.objective, max_tokens));
  return XgbModel(std::move(booster).value(), options.objective, max_tokens, rounds);
}

}  // namespace ucmoh
