// Records ingestion, add-intrinsic and the lineage matrix (registry_ops.h).
#include "ucmoh/registry/registry_ops.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <set>
#include <sstream>

#include "ucmoh/ewc.h"
#include "ucmoh/fisher.h"
#include "ucmoh/metrics.h"
#include "ucmoh/program_set.h"
#include "ucmoh/records_io.h"
#include "ucmoh/sha256.h"
#include "ucmoh/snapshot.h"
#include "ucmoh/splits.h"
#include "ucmoh/task_split.h"

namespace ucmoh::registry {

namespace {

int64_t Now() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string TempPath(const std::string& tag) {
  static int counter = 0;
  return (std::filesystem::temp_directory_path() /
          fmt::format("ucmoh-{}-{}-{}.pt", tag, static_cast<long>(::getpid()), counter++))
      .string();
}

Expected<std::string> ReadFileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::IOError(path + ": cannot read");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

Expected<std::string> SerializeModel(const CostModel& model) {
  const std::string tmp = TempPath("save");
  Status saved = model.Save(tmp);
  if (!saved.ok()) return saved;
  auto bytes = ReadFileBytes(tmp);
  std::remove(tmp.c_str());
  return bytes;
}

struct Located {
  std::string where;  // FILE:LINE
  Record record;
};

// Every record names a loaded intrinsic and lowers; the first that does not
// fails everything with its FILE:LINE.
Status ValidateRecords(const PluginSet& plugins, const std::vector<Located>& records) {
  for (const auto& r : records) {
    if (!plugins.Intrinsic(r.record.intrinsic)) {
      std::string known;
      for (const auto& i : plugins.AllIntrinsics()) known += (known.empty() ? "" : ", ") + i.name;
      return Status::InvalidArgument(fmt::format("{}: unknown intrinsic '{}' (no loaded plugin supplies it; known: {})",
                                                 r.where, r.record.intrinsic, known));
    }
  }
  if (records.empty()) return Status::Ok();
  std::vector<Record> plain;
  plain.reserve(records.size());
  for (const auto& r : records) plain.push_back(r.record);
  std::vector<FeaturizeFailure> failures;
  auto set = BuildProgramSet(plugins, plain, &failures);
  if (!failures.empty()) {
    const auto& f = failures.front();
    return Status::InvalidArgument(
        fmt::format("{}: record does not lower: {}", records[static_cast<size_t>(f.index)].where, f.message));
  }
  if (!set.ok()) return set.status();
  return Status::Ok();
}

Status RegisterIntrinsics(RegistryStore& store, const PluginSet& plugins, const std::set<std::string>& names) {
  for (const auto& name : names) {
    if (store.GetIntrinsic(name).ok()) continue;
    const LoadedPlugin* p = plugins.ForIntrinsic(name);
    IntrinsicEntry e;
    e.name = name;
    if (p) {
      e.target = p->target.name;
      e.plugin = p->entry.name;
      e.plugin_sha256 = p->library_sha256;
    }
    UCMOH_RETURN_IF_ERROR(store.PutIntrinsic(e));
  }
  return Status::Ok();
}

Expected<RecordsIngestResult> Ingest(RegistryStore& store, const PluginSet& plugins,
                                     const std::vector<Located>& records, const std::string& what) {
  UCMOH_RETURN_IF_ERROR(ValidateRecords(plugins, records));
  RecordsIngestResult result;
  std::vector<Record> plain;
  std::set<std::string> names;
  for (const auto& r : records) {
    plain.push_back(r.record);
    names.insert(r.record.intrinsic);
    result.by_intrinsic[r.record.intrinsic]++;
  }
  result.read = static_cast<int64_t>(plain.size());
  if (plain.empty()) return result;
  auto stored = store.AddRecords(plain);
  if (!stored.ok()) return stored.status();
  result.stored = *stored;
  UCMOH_RETURN_IF_ERROR(RegisterIntrinsics(store, plugins, names));
  (void)what;
  return result;
}

bool IsEwc(const std::string& m) { return m == "ewc"; }
bool IsOnline(const std::string& m) { return m == "online-ewc" || m == "online_ewc"; }

struct HeldOut {
  ProgramSet train, test;
  TaskSplit split;  // pinned: the parent's, extended for new tasks, or pinned now
};

// NAME's records split by its pinned held-out tasks: the parent version's
// split when it has one (options cannot move it), else one pinned now from
// the options' fraction and seed.
Expected<HeldOut> SplitIntrinsic(const RegistryStore& store, const PluginSet& plugins, const std::string& name,
                                 const std::map<std::string, TaskSplit>& pinned, const AddIntrinsicOptions& o) {
  auto records = store.ReadRecords(name);
  if (!records.ok()) return records.status();
  auto set = BuildProgramSet(plugins, *records);
  if (!set.ok()) return set.status().WithContext(name);
  const std::vector<std::string> keys = TaskKeys(*set);
  auto found = pinned.find(name);
  Expected<TaskSplit> split = found != pinned.end() ? ExtendTaskSplit(found->second, keys)
                                                    : PinTaskSplit(keys, o.test_fraction, o.split_seed);
  if (!split.ok())
    return Status::InvalidArgument(fmt::format("{}: cannot hold tasks out for evaluation: {}", name,
                                               split.status().message()));
  auto halves = ApplyTaskSplit(*set, *split);
  if (!halves.ok()) return halves.status().WithContext(name);
  if (halves->train.size() == 0 || halves->held_out.size() == 0)
    return Status::InvalidArgument(fmt::format("{}: its pinned split leaves no task to {}", name,
                                               halves->train.size() == 0 ? "train on" : "evaluate on"));
  return HeldOut{std::move(halves->train), std::move(halves->held_out), std::move(*split)};
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

}  // namespace

Expected<RecordsIngestResult> AddRecordsFiles(RegistryStore& store, const PluginSet& plugins,
                                              const std::vector<std::string>& files) {
  std::vector<Located> all;
  for (const auto& file : files) {
    auto records = ReadRecordsFile(file);
    if (!records.ok()) return records.status();
    for (auto& r : *records) all.push_back({fmt::format("{}:{}", file, r.line), std::move(r.record)});
  }
  return Ingest(store, plugins, all, "records add");
}

Expected<RecordsIngestResult> ImportRecordsFiles(RegistryStore& store, const PluginSet& plugins,
                                                 const std::string& format,
                                                 const std::vector<std::string>& files) {
  const LoadedPlugin* importer = nullptr;
  std::string known;
  for (const auto& p : plugins.plugins())
    for (const auto& name : p.plugin->Importers()) {
      if (name == format && !importer) importer = &p;
      known += (known.empty() ? "" : ", ") + name;
    }
  if (!importer) return Status::NotFound("no loaded plugin imports '" + format + "' (known: " + known + ")");
  std::vector<Located> all;
  for (const auto& file : files) {
    auto records = importer->plugin->Import(format, file);
    if (!records.ok()) return records.status();
    for (size_t i = 0; i < records->size(); ++i) {
      Record& r = (*records)[i];
      std::string where = fmt::format("{}: record {}", file, i + 1);
      auto line = r.provenance.details.find("line");
      if (line != r.provenance.details.end() && std::holds_alternative<int64_t>(line->second))
        where = fmt::format("{}:{}", file, std::get<int64_t>(line->second));
      all.push_back({where, std::move(r)});
    }
  }
  return Ingest(store, plugins, all, "records import");
}

Expected<CostModel> LoadVersionModel(const RegistryStore& store, int64_t number) {
  auto version = store.GetVersion(number);
  if (!version.ok()) return version.status();
  auto bytes = store.GetBlob(version->weights_sha256);  // verified against its sha256
  if (!bytes.ok()) return bytes.status().WithContext(fmt::format("weights of version {}", number));
  if (Sha256Hex(*bytes) != version->weights_sha256)
    return Status::Corruption(fmt::format("weights of version {} do not match their sha256", number));
  const std::string tmp = TempPath("load");
  {
    std::ofstream out(tmp, std::ios::binary);
    out.write(bytes->data(), static_cast<std::streamsize>(bytes->size()));
    if (!out) return Status::IOError(tmp + ": cannot write");
  }
  auto model = CostModel::Load(tmp);
  std::remove(tmp.c_str());
  return model;
}

Expected<AddIntrinsicResult> AddIntrinsic(RegistryStore& store, const PluginSet& plugins, const std::string& name,
                                          const AddIntrinsicOptions& o) {
  auto say = [&](const std::string& s) {
    if (o.on_progress) o.on_progress(s);
  };
  if (!IsEwc(o.method) && !IsOnline(o.method))
    return Status::InvalidArgument("unknown method '" + o.method + "' (ewc, online-ewc)");
  if (!(o.lambda >= 0)) return Status::InvalidArgument("lambda must be >= 0");
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

  // The starting point: latest, or nothing.
  std::optional<ModelVersion> parent;
  auto versions = store.ListVersions();
  if (!versions.ok()) return versions.status();
  if (!versions->empty()) {
    auto latest = store.ResolveRef("latest");
    if (!latest.ok()) return latest.status();
    auto v = store.GetVersion(*latest);
    if (!v.ok()) return v.status();
    parent = *v;
  }
  std::vector<std::string> learned = parent ? parent->intrinsics : std::vector<std::string>{};
  const bool already = std::find(learned.begin(), learned.end(), name) != learned.end();
  if (already && !o.relearn)
    return Status::AlreadyExists(fmt::format("'{}' is already learned (version {}); pass --relearn to train it again",
                                             name, parent->number));

  std::optional<CostModel> model;
  std::vector<Snapshot> snapshots;
  if (parent) {
    say(fmt::format("loading version {}", parent->number));
    auto m = LoadVersionModel(store, parent->number);
    if (!m.ok()) return m.status();
    model = std::move(*m);
    auto entries = store.ListSnapshots(parent->number);
    if (!entries.ok()) return entries.status();
    for (const auto& e : *entries) {
      auto bytes = store.GetBlob(e.blob_sha256);
      if (!bytes.ok()) return bytes.status().WithContext("snapshot " + e.name);
      auto s = DeserializeSnapshot(*bytes);
      if (!s.ok()) return s.status().WithContext("snapshot " + e.name);
      // Relearning: the intrinsic's own old snapshot does not anchor it.
      if (already && s->intrinsics == std::vector<std::string>{name}) continue;
      snapshots.push_back(std::move(*s));
    }
    if (IsOnline(o.method) && snapshots.size() > 1) {  // switching from separate: merge in order
      Snapshot merged = snapshots.front();
      for (size_t i = 1; i < snapshots.size(); ++i) {
        auto m2 = MergeOnline(merged, snapshots[i], o.gamma);
        if (!m2.ok()) return m2.status();
        merged = std::move(*m2);
      }
      snapshots = {merged};
    }
  } else {
    NetworkConfig config = o.network;
    config.seed = o.seed;
    auto m = CostModel::Create(config);
    if (!m.ok()) return m.status();
    model = std::move(*m);
  }
  for (const auto& s : snapshots) UCMOH_RETURN_IF_ERROR(CheckSnapshotFits(s, *model));

  // Data: NAME's training tasks; every learned intrinsic's held-out tasks.
  say("featurizing " + name);
  const std::map<std::string, TaskSplit> pinned = parent ? parent->task_splits : std::map<std::string, TaskSplit>{};
  auto data = SplitIntrinsic(store, plugins, name, pinned, o);
  if (!data.ok()) return data.status();

  std::shared_ptr<const EwcPenalty> penalty = MakeEwcPenalty(snapshots, o.lambda);
  TrainOptions t;
  t.mode = parent ? TransferMode::kFinetune : TransferMode::kScratch;
  t.epochs = o.epochs;
  t.seed = o.seed;
  t.penalty = snapshots.empty() ? nullptr : penalty.get();
  t.on_epoch = [&](const EpochReport& r) {
    say(fmt::format("epoch {}/{}: loss {:.4f}, val PCA {:.4f}", r.epoch, o.epochs, r.train_loss, r.val_pca));
  };
  say(fmt::format("training {} ({} programs, {} tasks, {}{})", name, data->train.size(), data->train.tasks.size(),
                  o.method, snapshots.empty() ? "" : fmt::format(", lambda {:g}", o.lambda)));
  auto report = Train(*model, data->train, t);
  if (!report.ok()) return report.status().WithContext(name);
  if (!already) learned.push_back(name);
  model->set_learned_intrinsics(learned);

  say("Fisher importance on " + name);
  FisherOptions fo;
  fo.pairwise_weight = t.pairwise_weight;
  fo.seed = o.seed;
  auto fisher = ComputeFisher(*model, data->train, fo);
  if (!fisher.ok()) return fisher.status().WithContext(name);

  VersionCommit commit;
  const std::string method_name = IsOnline(o.method) ? "online_ewc" : "ewc";
  if (IsOnline(o.method)) {
    Snapshot running = *fisher;
    if (!snapshots.empty()) {
      auto merged = MergeOnline(snapshots.front(), *fisher, o.gamma);
      if (!merged.ok()) return merged.status();
      running = std::move(*merged);
    }
    auto bytes = SerializeSnapshot(running);
    if (!bytes.ok()) return bytes.status();
    commit.snapshots.push_back({"online", running.intrinsics, method_name, std::move(*bytes)});
  } else {
    snapshots.push_back(*fisher);
    for (const auto& s : snapshots) {
      auto bytes = SerializeSnapshot(s);
      if (!bytes.ok()) return bytes.status();
      commit.snapshots.push_back(
          {s.intrinsics.size() == 1 ? s.intrinsics.front() : fmt::format("{}", fmt::join(s.intrinsics, "+")),
           s.intrinsics, method_name, std::move(*bytes)});
    }
  }

  // Row of R for the new version, and ACC/BWT against earlier diagonals.
  say("evaluating " + std::to_string(learned.size()) + " intrinsics on held-out tasks");
  Evaluation eval;
  std::map<std::string, TaskSplit> splits = pinned;
  splits[name] = data->split;
  double bwt_sum = 0;
  int bwt_n = 0;
  for (const auto& in : learned) {
    const ProgramSet* test = nullptr;
    std::optional<HeldOut> other;
    if (in == name) {
      test = &data->test;
    } else {
      auto h = SplitIntrinsic(store, plugins, in, pinned, o);
      if (!h.ok()) return h.status();
      other = std::move(*h);
      test = &other->test;
      splits[in] = other->split;
    }
    auto scores = model->Predict(*test);
    if (!scores.ok()) return scores.status();
    RankingMetrics m = EvaluateRanking(*test, *scores);
    eval.rows.push_back({in, m.pca, m.top1, m.top5});
    eval.acc += m.pca / static_cast<double>(learned.size());
    if (in != name) {  // R[j][j]: the row of the version that learned `in`
      auto entry = store.GetIntrinsic(in);
      if (entry.ok() && entry->learned_in_version > 0) {
        auto v = store.GetVersion(entry->learned_in_version);
        if (v.ok())
          for (const auto& row : v->evaluation.rows)
            if (row.intrinsic == in) {
              bwt_sum += m.pca - row.pca;
              ++bwt_n;
            }
      }
    }
  }
  eval.bwt = bwt_n ? bwt_sum / bwt_n : 0.0;

  auto weights = SerializeModel(*model);
  if (!weights.ok()) return weights.status();

  std::vector<std::string> keys;
  auto name_records = store.ReadRecords(name);
  if (!name_records.ok()) return name_records.status();
  for (const auto& r : *name_records) keys.push_back(ProgramKey(r));
  std::sort(keys.begin(), keys.end());
  std::string joined;
  for (const auto& k : keys) joined += k + "\n";

  commit.version.parent = parent ? parent->number : 0;
  commit.version.intrinsics = learned;
  commit.version.hyper_parameters = {
      {"method", o.method},           {"lambda", o.lambda},
      {"gamma", o.gamma},             {"epochs", static_cast<int64_t>(o.epochs)},
      {"epochs_run", static_cast<int64_t>(report->epochs_run)},
      {"intrinsic", name},            {"test_fraction", data->split.test_fraction},
      {"split_seed", static_cast<int64_t>(data->split.seed)},
      {"hidden", static_cast<int64_t>(model->config().hidden)},
      {"heads", static_cast<int64_t>(model->config().heads)},
      {"encoder_layers", static_cast<int64_t>(model->config().encoder_layers)},
      {"fc_blocks", static_cast<int64_t>(model->config().fc_blocks)}};
  commit.version.training_data_digest = Sha256Hex(joined);
  commit.version.task_splits = std::move(splits);
  commit.version.trained_tasks[name] = TaskKeys(data->train);
  commit.version.evaluation = eval;
  commit.version.created_at = Now();
  commit.weights = std::move(*weights);
  IntrinsicEntry entry;
  auto existing = store.GetIntrinsic(name);
  if (existing.ok()) entry = *existing;
  const LoadedPlugin* p = plugins.ForIntrinsic(name);
  entry.name = name;
  if (p) {
    entry.target = p->target.name;
    entry.plugin = p->entry.name;
    entry.plugin_sha256 = p->library_sha256;
  }
  entry.learned_in_version = 0;
  entry.learned_at = 0;
  commit.learned.push_back(entry);
  commit.move_latest = true;
  say("committing");
  auto committed = store.CommitVersion(commit);
  if (!committed.ok()) return committed.status();
  return AddIntrinsicResult{*committed, *report};
}

Expected<LineageMatrix> EvaluationMatrix(const RegistryStore& store, int64_t number) {
  std::vector<ModelVersion> chain;
  for (int64_t n = number; n > 0;) {
    auto v = store.GetVersion(n);
    if (!v.ok()) return v.status();
    chain.push_back(*v);
    n = v->parent;
    if (chain.size() > 100000) return Status::Corruption("parent chain has a cycle");
  }
  std::reverse(chain.begin(), chain.end());
  LineageMatrix m;
  m.intrinsics = chain.back().intrinsics;
  m.acc = chain.back().evaluation.acc;
  m.bwt = chain.back().evaluation.bwt;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (const auto& v : chain) {
    m.versions.push_back(v.number);
    std::vector<double> pca(m.intrinsics.size(), nan), top1(m.intrinsics.size(), nan);
    for (const auto& row : v.evaluation.rows)
      for (size_t j = 0; j < m.intrinsics.size(); ++j)
        if (m.intrinsics[j] == row.intrinsic) {
          pca[j] = row.pca;
          top1[j] = row.top1;
        }
    m.pca.push_back(pca);
    m.top1.push_back(top1);
  }
  return m;
}

}  // namespace ucmoh::registry
