// The C++ object behind a ucmoh_model handle: a cost model opened from a
// registry version or a pulled directory, with the plugins that featurize
// programs for it and, for a registry version, what an online update and a
// commit need. c_api.cpp is only the C boundary over this.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "ucmoh/cost_model.h"
#include "ucmoh/online_update.h"
#include "ucmoh/plugin_loader.h"
#include "ucmoh/registry/model_version.h"

namespace ucmoh::sdk {

enum class ProgramFormat { kAst, kRecords };

class ScoringModel {
 public:
  static Expected<std::unique_ptr<ScoringModel>> OpenRegistry(const std::string& registry_path, const std::string& ref,
                                                             const std::string& plugins_json);
  static Expected<std::unique_ptr<ScoringModel>> OpenPulled(const std::string& directory,
                                                           const std::string& plugins_json);

  // One score per program, in input order (shared lock: many threads at once).
  Expected<std::vector<float>> Score(ProgramFormat format, std::string_view programs) const;

  // The programs' flat feature rows (FlattenProgramSet), row-major; no lock: no model state.
  Expected<std::vector<float>> FlatFeatures(ProgramFormat format, std::string_view programs, int max_tokens) const;

  // latencies: one per program, or empty to use the programs' own.
  Status Update(ProgramFormat format, std::string_view programs, const std::vector<double>& latencies, int epochs);
  Expected<int64_t> Commit();

  // The arithmetic Score uses from now on: "float32" (the default) or "bf16"
  // (ParseScoringPrecision; ucmoh_set_precision).
  Status SetPrecision(const std::string& name);

  // The JSON object of ucmoh_info.
  std::string Info() const;

 private:
  ScoringModel(PluginSet plugins, CostModel model) : plugins_(std::move(plugins)), model_(std::move(model)) {}
  Expected<ProgramSet> Featurize(ProgramFormat format, std::string_view programs) const;
  Status LoadStateOnce();
  nlohmann::json LastUpdateJson() const;

  PluginSet plugins_;
  CostModel model_;
  std::string source_;            // "registry" or "pulled"
  std::string location_;          // registry path or pulled directory
  registry::ModelVersion version_;  // as opened (metrics, intrinsics, hyper-parameters)
  std::optional<LifelongState> state_;  // read at the first update
  PredictOptions predict_;        // the precision Score uses
  int64_t updates_ = 0;
  OnlineUpdateReport last_update_;
  LifelongStepOptions last_update_options_;  // method and λ of the last update
  std::vector<std::string> update_digests_;  // sha256 of each update's programs
  mutable std::shared_mutex mutex_;  // model_, version_ and the update counters
  std::mutex update_mutex_;           // serializes Update and Commit (held while training)
};

}  // namespace ucmoh::sdk
