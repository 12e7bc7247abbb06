// ScoringModel (scoring_model.h): open, score, update, commit, describe.
#include "scoring_model.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>

#include "ucmoh/ast_program.h"
#include "ucmoh/features.h"
#include "ucmoh/file_bytes.h"
#include "ucmoh/flat_features.h"
#include "ucmoh/records_io.h"
#include "ucmoh/registry/registry_ops.h"
#include "ucmoh/registry/registry_store.h"
#include "ucmoh/registry/version_update.h"
#include "ucmoh/server/remote_pull.h"
#include "ucmoh/sha256.h"
#include "ucmoh/state_dir.h"

namespace ucmoh::sdk {

namespace {

using json = nlohmann::json;

// The manifest `registry pull` wrote, checked against this library's schema.
Expected<json> ReadPullManifest(const std::string& directory) {
  const std::string path = (std::filesystem::path(directory) / "manifest.json").string();
  auto text = ReadFileBytes(path);
  if (!text.ok()) return Status::NotFound(directory + " is not a pulled model: " + text.status().message());
  json manifest = json::parse(*text, nullptr, false);
  if (manifest.is_discarded() || !manifest.is_object()) return Status::Corruption(path + ": not a JSON object");
  const json schema = manifest.value("feature_schema", json::object());
  const int version = schema.is_object() ? schema.value("version", 0) : 0;
  if (version != kFeatureSchemaVersion)
    return Status::Unsupported(fmt::format("{}: the model uses feature schema {}, this library knows only schema {} "
                                           "(pull a version trained on schema {}, or use a library that knows {})",
                                           path, version, kFeatureSchemaVersion, kFeatureSchemaVersion, version));
  if (!manifest.contains("weights") || !manifest.contains("weights_sha256"))
    return Status::Corruption(path + ": no \"weights\" (pulled by an older registry: pull it again)");
  return manifest;
}

// What a pulled manifest says about the version, as a ModelVersion.
registry::ModelVersion VersionFromManifest(const json& m) {
  registry::ModelVersion v;
  v.name = m.value("model", "ucmoh");
  v.number = m.value("registry_version", int64_t{0});
  v.parent = m.value("parent", int64_t{0});
  v.intrinsics = m.value("intrinsics", std::vector<std::string>{});
  v.weights_sha256 = m.value("weights_sha256", "");
  const json metrics = m.value("metrics", json::object());
  v.evaluation.acc = metrics.value("acc", 0.0);
  v.evaluation.bwt = metrics.value("bwt", 0.0);
  for (const auto& row : metrics.value("per_intrinsic", json::array()))
    v.evaluation.rows.push_back({row.value("intrinsic", ""), row.value("pca", 0.0), row.value("top1", 0.0),
                                 row.value("top5", 0.0)});
  return v;
}

}  // namespace

Expected<std::unique_ptr<ScoringModel>> ScoringModel::OpenRegistry(const std::string& registry_path,
                                                                   const std::string& ref,
                                                                   const std::string& plugins_json) {
  if (server::IsRemoteReference(registry_path)) {  // `registry serve` elsewhere: pull, then open what was pulled
    auto cached = server::PullToCache(registry_path, ref);
    if (!cached.ok()) return cached.status();
    return OpenPulled(cached->dir, plugins_json);
  }
  auto plugins = LoadPlugins(plugins_json);
  if (!plugins.ok()) return plugins.status();
  auto store = registry::RegistryStore::Open(registry_path, registry::OpenMode::kReadOnly);
  if (!store.ok()) return store.status();
  auto number = (*store)->ResolveRef(ref);
  if (!number.ok()) return number.status();
  auto version = (*store)->GetVersion(*number);
  if (!version.ok()) return version.status();
  auto model = registry::LoadVersionModel(**store, *number);  // refuses another feature schema
  if (!model.ok()) return model.status().WithContext(fmt::format("{} {}", registry_path, ref));
  std::unique_ptr<ScoringModel> m(new ScoringModel(std::move(*plugins), std::move(*model)));
  m->source_ = "registry";
  m->location_ = registry_path;
  m->version_ = std::move(*version);
  return m;
}

Expected<std::unique_ptr<ScoringModel>> ScoringModel::OpenPulled(const std::string& directory,
                                                                 const std::string& plugins_json) {
  auto manifest = ReadPullManifest(directory);
  if (!manifest.ok()) return manifest.status();
  const std::string weights = (std::filesystem::path(directory) / manifest->value("weights", "")).string();
  auto bytes = ReadFileBytes(weights);
  if (!bytes.ok()) return bytes.status();
  if (Sha256Hex(*bytes) != manifest->value("weights_sha256", ""))
    return Status::Corruption(weights + ": sha256 differs from the manifest's weights_sha256");
  auto model = CostModel::Load(weights);
  if (!model.ok()) return model.status().WithContext(weights);
  auto plugins = LoadPlugins(plugins_json);
  if (!plugins.ok()) return plugins.status();
  std::unique_ptr<ScoringModel> m(new ScoringModel(std::move(*plugins), std::move(*model)));
  m->source_ = "pulled";
  m->location_ = directory;
  m->version_ = VersionFromManifest(*manifest);
  return m;
}

Expected<ProgramSet> ScoringModel::Featurize(ProgramFormat format, std::string_view text) const {
  if (format == ProgramFormat::kRecords) {
    auto records = ParseRecordsText(text);
    if (!records.ok()) return records.status();
    return FeaturizeRecords(plugins_, *records);
  }
  auto programs = ParseAstPrograms(text, plugins_);
  if (!programs.ok()) return programs.status();
  return AstProgramSet(plugins_, *programs);
}

Expected<std::vector<float>> ScoringModel::Score(ProgramFormat format, std::string_view programs) const {
  auto set = Featurize(format, programs);  // before the lock: featurizing reads no model state
  if (!set.ok()) return set.status();
  if (set->size() == 0) return std::vector<float>{};
  std::shared_lock lock(mutex_);
  return model_.Predict(*set, predict_);
}

Expected<std::vector<float>> ScoringModel::FlatFeatures(ProgramFormat format, std::string_view programs,
                                                       int max_tokens) const {
  if (max_tokens < 1) return Status::InvalidArgument(fmt::format("max_tokens must be at least 1 (got {})", max_tokens));
  auto set = Featurize(format, programs);
  if (!set.ok()) return set.status();
  return FlattenProgramSet(*set, max_tokens);
}

Status ScoringModel::SetPrecision(const std::string& name) {
  auto precision = ParseScoringPrecision(name);
  if (!precision.ok()) return precision.status();
  std::unique_lock lock(mutex_);
  predict_.precision = *precision;
  return Status::Ok();
}

Status ScoringModel::LoadStateOnce() {
  if (state_) return Status::Ok();
  if (source_ != "registry") {
    const std::string dir = (std::filesystem::path(location_) / "forgetting").string();
    if (!std::filesystem::is_directory(dir))
      return Status::Unsupported(location_ + ": no forgetting/ state to update under (pulled by an older registry: "
                                 "pull it again, or open its registry version)");
    auto loaded = ReadStateDir(dir, plugins_);
    if (!loaded.ok()) return loaded.status();
    version_.hyper_parameters = std::move(loaded->hyper_parameters);
    state_ = std::move(loaded->state);
    return Status::Ok();
  }
  auto store = registry::RegistryStore::Open(location_, registry::OpenMode::kReadOnly);
  if (!store.ok()) return store.status();
  auto state = registry::LoadVersionState(**store, plugins_, version_);
  if (!state.ok()) return state.status().WithContext(fmt::format("forgetting state of version {}", version_.number));
  state_ = std::move(*state);
  return Status::Ok();
}

Status ScoringModel::Update(ProgramFormat format, std::string_view programs, const std::vector<double>& latencies,
                            int epochs) {
  auto set = Featurize(format, programs);
  if (!set.ok()) return set.status();
  if (!latencies.empty()) {
    if (latencies.size() != set->size())
      return Status::InvalidArgument(fmt::format("update: {} latencies for {} programs", latencies.size(), set->size()));
    set->latency_s = latencies;
  }
  std::lock_guard serial(update_mutex_);  // one update or commit at a time
  UCMOH_RETURN_IF_ERROR(LoadStateOnce());
  OnlineUpdateOptions options;
  auto step = registry::StepOptionsOf(version_);
  if (!step.ok()) return step.status();
  options.step = std::move(*step);
  if (epochs > 0) options.epochs = epochs;
  // Train a copy while scoring goes on with the current model; a failed
  // update leaves the model as it was.
  CostModel updated = model_.Clone();
  auto report = OnlineUpdate(updated, *state_, *set, options);
  if (!report.ok()) return report.status();
  std::string digest_input(programs);
  for (double l : set->latency_s) digest_input += fmt::format("\n{:.17g}", l);
  std::unique_lock swap(mutex_);
  model_ = std::move(updated);
  last_update_ = *report;
  last_update_options_ = options.step;
  last_update_options_.on_progress = nullptr;
  ++updates_;
  update_digests_.push_back(Sha256Hex(digest_input));
  return Status::Ok();
}

Expected<int64_t> ScoringModel::Commit() {
  std::lock_guard serial(update_mutex_);  // model_ does not change while this is held
  if (source_ != "registry") return Status::Unsupported(location_ + ": a pulled model has no registry to commit to");
  if (updates_ == 0) return Status::InvalidArgument("commit: nothing to commit (no update since the model was opened)");
  auto store = registry::RegistryStore::Open(location_, registry::OpenMode::kReadWrite);
  if (!store.ok()) return store.status();
  std::string digests;
  for (const auto& d : update_digests_) digests += d + "\n";
  registry::OnlineUpdateCommit commit{version_.number, &model_, last_update_, updates_, Sha256Hex(digests)};
  auto committed = registry::CommitOnlineUpdate(**store, plugins_, commit);
  if (!committed.ok()) return committed.status();
  std::unique_lock swap(mutex_);
  version_ = *committed;
  updates_ = 0;
  update_digests_.clear();
  return version_.number;
}

// The forgetting control the last update trained under, and what it cost:
// a compiler sees whether the EWC penalty weighed anything.
json ScoringModel::LastUpdateJson() const {
  if (updates_ == 0) return nullptr;
  const LifelongStepOptions& o = last_update_options_;
  return {{"method", LifelongMethodName(o.method)},
          {"lambda", MethodUsesEwc(o.method) ? json(o.lambda) : json(nullptr)},
          {"measured_programs", last_update_.measured_programs},
          {"replayed_programs", last_update_.replayed_programs},
          {"epochs", last_update_.epochs},
          {"learning_rate", last_update_.learning_rate},
          {"penalty", last_update_.penalty},
          {"final_train_loss", last_update_.final_train_loss},
          {"seconds", last_update_.seconds}};
}

std::string ScoringModel::Info() const {
  std::shared_lock lock(mutex_);
  json rows = json::array();
  for (const auto& r : version_.evaluation.rows)
    rows.push_back({{"intrinsic", r.intrinsic}, {"pca", r.pca}, {"top1", r.top1}, {"top5", r.top5}});
  const NetworkConfig& c = model_.config();
  return json{{"source", source_},
              {"location", location_},
              {"model", version_.name},
              {"registry_version", version_.number},
              {"parent", version_.parent},
              {"intrinsics", model_.learned_intrinsics()},
              {"feature_schema", kFeatureSchemaVersion},
              {"ast_format", kAstFormatVersion},
              {"network", {{"architecture", c.architecture}, {"hidden", c.hidden}, {"heads", c.heads}}},
              {"metrics", {{"acc", version_.evaluation.acc}, {"bwt", version_.evaluation.bwt}, {"per_intrinsic", rows}}},
              {"precision", predict_.precision == ScoringPrecision::kBfloat16 ? "bf16" : "float32"},
              {"updates", updates_},
              {"last_update", LastUpdateJson()}}
      .dump();
}

}  // namespace ucmoh::sdk
