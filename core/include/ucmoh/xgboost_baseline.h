// Gradient-boosted trees as a cost-model baseline, with TVM's own settings,
// through XGBoost's C API. Programs become flat vectors (flat_features.h) of
// a token count fixed at training time and stored with the model.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ucmoh/program_set.h"
#include "ucmoh/status.h"

namespace ucmoh {

enum class XgbObjective {
  // AutoTVM's XGBoost tuner: rank:pairwise within tasks, max_depth 3,
  // gamma 1e-4, min_child_weight 1, eta 0.3, lambda 1, alpha 0.
  kRank,
  // MetaSchedule's XGBModel: squared error on the normalized throughput,
  // weighted by it, max_depth 10, gamma 1e-3, min_child_weight 0, eta 0.2.
  kReg,
};

Expected<XgbObjective> ParseXgbObjective(const std::string& name);  // "rank", "reg"
const char* XgbObjectiveName(XgbObjective objective);

struct XgbOptions {
  XgbObjective objective = XgbObjective::kRank;
  int rounds = 300;                // boosting rounds (upper bound with early stopping)
  int early_stopping_rounds = 50;  // with a validation set: stop after this many without a better PCA
  int nthread = 0;                 // 0: every core XGBoost sees
  uint64_t seed = 0;
  int max_tokens = 0;              // flat width; 0: the training set's longest program
  // TVM leaves XGBoost's default, which is "exact" on small data; "hist" ranks
  // as well on our sets and trains about ten times faster on hundreds of columns.
  std::string tree_method = "hist";
};

// A trained booster. Move-only: it owns the XGBoost handle.
class XgbModel {
 public:
  XgbModel(XgbModel&&) noexcept;
  XgbModel& operator=(XgbModel&&) noexcept;
  ~XgbModel();

  // One score per program of `set`, in program order; higher = predicted faster.
  Expected<std::vector<float>> Predict(const ProgramSet& set) const;

  // One self-describing file (XGBoost's UBJSON with our settings as attributes),
  // written atomically.
  Status Save(const std::string& path) const;
  static Expected<XgbModel> Load(const std::string& path);

  XgbObjective objective() const { return objective_; }
  int max_tokens() const { return max_tokens_; }
  int rounds() const { return rounds_; }  // trees kept (after early stopping)

  struct Booster;  // opaque owner of the XGBoost handle

 private:
  XgbModel(std::unique_ptr<Booster> booster, XgbObjective objective, int max_tokens, int rounds);
  friend Expected<XgbModel> TrainXgb(const ProgramSet&, const XgbOptions&, const ProgramSet*);

  std::unique_ptr<Booster> booster_;
  XgbObjective objective_ = XgbObjective::kRank;
  int max_tokens_ = 0;
  int rounds_ = 0;
};

// Trains on `train`; with a `validation` set, keeps the round with the best
// validation PCA and stops early (options.early_stopping_rounds).
Expected<XgbModel> TrainXgb(const ProgramSet& train, const XgbOptions& options,
                            const ProgramSet* validation = nullptr);

}  // namespace ucmoh
