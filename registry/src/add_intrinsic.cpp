// add-intrinsic (registry_ops.h): load the latest version and its forgetting
// state, run the one lifelong step (lifelong_step.h), commit the result.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <optional>

#include "version_data.h"
#include "ucmoh/cost_model.h"
#include "ucmoh/lifelong_step.h"
#include "ucmoh/program_set.h"
#include "ucmoh/registry/registry_ops.h"

#include "ucmoh/worker_group.h"
#include "ucmoh/rehearsal.h"
#include "ucmoh/sha256.h"
#include "ucmoh/snapshot.h"
#include "ucmoh/task_split.h"

namespace ucmoh::registry {

namespace {

int64_t Now() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Suggests, for one intrinsic, only the commands that can produce its records.
std::string HowToGetRecords(const PluginSet& plugins, const std::string& name) {
  std::string how = "`registry records add FILE.jsonl`";
  if (const LoadedPlugin* p = plugins.ForIntrinsic(name)) {
    for (const std::string& format : p->plugin->Importers())
      how += fmt::format(", `registry records import {} FILE`", format);
    if (p->plugin->CanMeasure(name).ok()) how += fmt::format(", `registry measure {}`", name);
  }
  return how;
}

Status CheckRequest(const RegistryStore& store, const PluginSet& plugins, const std::string& name) {
  if (!plugins.Intrinsic(name)) {
    std::string known;
    for (const auto& i : plugins.AllIntrinsics()) known += (known.empty() ? "" : ", ") + i.name;
    return Status::NotFound("no loaded plugin supplies intrinsic '" + name + "' (loaded: " + known +
                            "); add its plugin to plugins.json");
  }
  auto count = store.CountRecords(name);
  if (!count.ok()) return count.status();
  if (*count == 0)
    return Status::NotFound(fmt::format("the registry has no records for '{}'; add some first: {}", name,
                                        HowToGetRecords(plugins, name)));
  return Status::Ok();
}

// The latest version, or nothing in an empty registry.
Expected<std::optional<ModelVersion>> Latest(const RegistryStore& store) {
  auto versions = store.ListVersions();
  if (!versions.ok()) return versions.status();
  if (versions->empty()) return std::optional<ModelVersion>{};
  auto latest = store.ResolveRef("latest");
  if (!latest.ok()) return latest.status();
  auto v = store.GetVersion(*latest);
  if (!v.ok()) return v.status();
  return std::optional<ModelVersion>{std::move(*v)};
}

// Every step option as configured (one list: lifelong_step_options.h), then
// what this step did with them and the network it has.
ParamMap HyperParameters(const AddIntrinsicOptions& o, const LifelongStepResult& r, const std::string& name,
                         const TaskSplit& split) {
  ParamMap h = StepOptionsToParams(o.step);
  h["step_options"] = kStepOptionsFormat;
  if (r.lambda_applied) h["lambda_used"] = r.lambda;
  h["epochs_run"] = static_cast<int64_t>(r.train.epochs_run);
  h["intrinsic"] = name;
  h["test_fraction"] = split.test_fraction;
  h["split_seed"] = static_cast<int64_t>(split.seed);
  const NetworkConfig& n = r.model.config();  // a later step keeps the first step's network
  h["hidden"] = static_cast<int64_t>(n.hidden);
  h["heads"] = static_cast<int64_t>(n.heads);
  h["encoder_layers"] = static_cast<int64_t>(n.encoder_layers);
  h["fc_blocks"] = static_cast<int64_t>(n.fc_blocks);
  return h;
}

Expected<VersionCommit> BuildCommit(const RegistryStore& store, const PluginSet& plugins, const std::string& name,
                                    const std::optional<ModelVersion>& parent, const HeldOut& data,
                                    const std::map<std::string, TaskSplit>& splits, const AddIntrinsicOptions& o,
                                    const LifelongStepResult& r) {
  VersionCommit commit;
  for (const auto& s : r.state.snapshots) {
    auto bytes = SerializeSnapshot(s);
    if (!bytes.ok()) return bytes.status();
    commit.snapshots.push_back({fmt::format("{}", fmt::join(s.intrinsics, "+")), s.intrinsics, s.method, std::move(*bytes)});
  }
  for (const auto& sample : r.state.rehearsal)
    commit.version.rehearsal[sample.intrinsic] = {sample.replay_keys, sample.validation_keys};
  auto weights = r.model.ToBytes();
  if (!weights.ok()) return weights.status();
  commit.weights = std::move(*weights);
  std::vector<std::string> keys;
  for (size_t p = 0; p < data.train.size() + data.test.size(); ++p)
    keys.push_back(p < data.train.size() ? data.train.ProgramKeyAt(static_cast<int32_t>(p))
                                         : data.test.ProgramKeyAt(static_cast<int32_t>(p - data.train.size())));
  std::sort(keys.begin(), keys.end());
  commit.version.training_data_digest = Sha256Hex(fmt::format("{}\n", fmt::join(keys, "\n")));
  commit.version.parent = parent ? parent->number : 0;
  commit.version.intrinsics = r.model.learned_intrinsics();
  commit.version.hyper_parameters = HyperParameters(o, r, name, data.split);
  commit.version.task_splits = splits;
  commit.version.trained_tasks[name] = TaskKeys(data.train);
  commit.version.evaluation = MakeEvaluation(store, r.row, name);
  commit.version.created_at = Now();
  IntrinsicEntry entry;
  if (auto existing = store.GetIntrinsic(name); existing.ok()) entry = *existing;
  entry.name = name;
  if (const LoadedPlugin* p = plugins.ForIntrinsic(name)) {
    entry.target = p->target.name;
    entry.plugin = p->entry.name;
    entry.plugin_sha256 = p->library_sha256;
  }
  entry.learned_in_version = 0;
  entry.learned_at = 0;
  commit.learned.push_back(entry);
  commit.move_latest = true;
  return commit;
}

}  // namespace

Expected<AddIntrinsicResult> AddIntrinsic(RegistryStore& store, const PluginSet& plugins, const std::string& name,
                                          const AddIntrinsicOptions& o) {
  auto say = [&](const std::string& s) {
    if (o.step.on_progress) o.step.on_progress(s);
  };
  if (o.step.method == LifelongMethod::kJoint || o.step.method == LifelongMethod::kSeparate)
    return Status::InvalidArgument(std::string("add-intrinsic cannot use the study baseline '") +
                                   LifelongMethodName(o.step.method) + "'");
  UCMOH_RETURN_IF_ERROR(CheckRequest(store, plugins, name));
  auto parent = Latest(store);
  if (!parent.ok()) return parent.status();
  const std::vector<std::string> learned = *parent ? (*parent)->intrinsics : std::vector<std::string>{};
  if (std::find(learned.begin(), learned.end(), name) != learned.end() && !o.relearn)
    return Status::AlreadyExists(fmt::format("'{}' is already learned (version {}); pass --relearn to train it again",
                                             name, (*parent)->number));
  std::vector<std::string> row = learned;  // the evaluation row, in learning order
  if (std::find(row.begin(), row.end(), name) == row.end()) row.push_back(name);
  say(fmt::format("featurizing {} intrinsics", row.size()));
  const auto pinned = *parent ? (*parent)->task_splits : std::map<std::string, TaskSplit>{};
  auto data = SplitAll(store, plugins, row, pinned, NewSplit{o.test_fraction, o.split_seed});
  if (!data.ok()) return data.status();
  std::optional<CostModel> model;
  LifelongStepInput in;
  if (*parent) {
    say(fmt::format("loading version {}", (*parent)->number));
    auto m = LoadVersionModel(store, (*parent)->number);
    if (!m.ok()) return m.status();
    model = std::move(*m);
    in.model = &*model;
    auto state = LoadState(store, **parent, *data);
    if (!state.ok()) return state.status();
    in.state = std::move(*state);
  }
  in.intrinsic = name;
  in.train = &data->at(name).train;
  std::map<std::string, TaskSplit> splits = pinned;
  for (const auto& intrinsic : row) {
    in.evaluate.push_back({intrinsic, &data->at(intrinsic).test});
    splits[intrinsic] = data->at(intrinsic).split;
  }
  auto step = RunLifelongStep(in, o.step);
  if (!step.ok()) return step.status();
  if (o.step.training.workers && !o.step.training.workers->writes())
    return AddIntrinsicResult{ModelVersion{}, std::move(*step)};  // data-parallel: rank 0 commits
  auto commit = BuildCommit(store, plugins, name, *parent, data->at(name), splits, o, *step);
  if (!commit.ok()) return commit.status();
  say("committing");
  auto committed = store.CommitVersion(*commit);
  if (!committed.ok()) return committed.status();
  return AddIntrinsicResult{*committed, std::move(*step)};
}

}  // namespace ucmoh::registry
