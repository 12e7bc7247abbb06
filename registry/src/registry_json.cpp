// The registry's JSON views (ucmoh/registry/registry_json.h).
#include "ucmoh/registry/registry_json.h"

#include <cmath>
#include <cstdint>
#include <map>

#include "ucmoh/hardware_json.h"
#include "ucmoh/plugin_c_json.h"

namespace ucmoh::registry {

using nlohmann::json;

namespace {

// NaN (not evaluated) is null: JSON has no NaN.
json Cell(double x) { return std::isnan(x) ? json(nullptr) : json(x); }

}  // namespace

Expected<std::map<int64_t, std::vector<std::string>>> AliasNamesByVersion(const RegistryStore& store) {
  auto aliases = store.ListAliases();
  if (!aliases.ok()) return aliases.status();
  std::map<int64_t, std::vector<std::string>> names;
  for (const auto& a : *aliases) names[a.version].push_back(a.name);
  return names;
}

json VersionToJson(const ModelVersion& v, const std::vector<std::string>& aliases) {
  json rows = json::array();
  for (const auto& r : v.evaluation.rows)
    rows.push_back({{"intrinsic", r.intrinsic}, {"pca", r.pca}, {"top1", r.top1}, {"top5", r.top5}});
  json hp = json::object();
  for (const auto& entry : v.hyper_parameters) {
    json& slot = hp[entry.first];  // clang's C++17 cannot capture a structured binding
    std::visit([&](const auto& x) { slot = x; }, entry.second);
  }
  return {{"version", v.number}, {"name", v.name}, {"parent", v.parent}, {"intrinsics", v.intrinsics},
          {"acc", v.evaluation.acc}, {"bwt", v.evaluation.bwt}, {"evaluation", rows},
          {"hyper_parameters", hp}, {"created_at", v.created_at}, {"tool_version", v.tool_version},
          {"weights_sha256", v.weights_sha256}, {"snapshot_sha256s", v.snapshot_sha256s},
          {"training_data_digest", v.training_data_digest}, {"aliases", aliases}};
}

Expected<json> VersionsJson(const RegistryStore& store) { return VersionsJson(store, 0, SIZE_MAX); }

Expected<json> VersionsJson(const RegistryStore& store, int64_t from, size_t limit) {
  auto versions = store.ListVersions(from, limit);
  if (!versions.ok()) return versions.status();
  auto names = AliasNamesByVersion(store);
  if (!names.ok()) return names.status();
  json out = json::array();
  for (const auto& v : *versions) out.push_back(VersionToJson(v, (*names)[v.number]));
  return out;
}

Expected<json> VersionDetailJson(const RegistryStore& store, int64_t version) {
  auto v = store.GetVersion(version);
  if (!v.ok()) return v.status();
  auto names = AliasNamesByVersion(store);
  if (!names.ok()) return names.status();
  auto snaps = store.ListSnapshots(version);
  if (!snaps.ok()) return snaps.status();
  json j = VersionToJson(*v, (*names)[version]);
  json s = json::array();
  for (const auto& e : *snaps)
    s.push_back({{"name", e.name}, {"intrinsics", e.intrinsics}, {"method", e.method}, {"sha256", e.blob_sha256}});
  j["snapshots"] = s;
  return j;
}

json EvaluationMatrixToJson(const LineageMatrix& m) {
  json pca = json::array(), top1 = json::array();
  for (size_t i = 0; i < m.versions.size(); ++i) {
    json a = json::array(), b = json::array();
    for (size_t j = 0; j < m.intrinsics.size(); ++j) {
      a.push_back(Cell(m.pca[i][j]));
      b.push_back(Cell(m.top1[i][j]));
    }
    pca.push_back(a);
    top1.push_back(b);
  }
  return {{"versions", m.versions}, {"intrinsics", m.intrinsics}, {"pca", pca},
          {"top1", top1}, {"acc", m.acc}, {"bwt", m.bwt}};
}

json EventsToJson(const std::vector<Event>& events) {
  json out = json::array();
  for (const auto& e : events)
    out.push_back({{"sequence", e.sequence}, {"at", e.at}, {"kind", e.kind}, {"detail", e.detail}});
  return out;
}

json AliasesToJson(const std::vector<AliasEntry>& aliases) {
  json out = json::array();
  for (const auto& a : aliases) out.push_back({{"name", a.name}, {"version", a.version}, {"set_at", a.set_at}});
  return out;
}

Expected<json> IntrinsicsJson(const RegistryStore& store, const PluginSet& plugins) {
  struct Row { std::string plugin; int64_t learned = 0; bool loaded = false; };
  std::map<std::string, Row> rows;
  for (const auto& p : plugins.plugins())
    for (const auto& i : p.intrinsics) rows[i.name] = {p.entry.name, 0, true};
  auto entries = store.ListIntrinsics();
  if (!entries.ok()) return entries.status();
  for (const auto& e : *entries) {
    Row& r = rows[e.name];
    if (r.plugin.empty()) r.plugin = e.plugin;
    r.learned = e.learned_in_version;
  }
  json out = json::array();
  for (const auto& [name, r] : rows) {
    auto n = store.CountRecords(name);
    out.push_back({{"intrinsic", name}, {"plugin", r.plugin}, {"plugin_loaded", r.loaded},
                   {"records", n.ok() ? *n : 0}, {"learned_in_version", r.learned}});
  }
  return out;
}

json PluginsToJson(const PluginSet& plugins) {
  json out = json::array();
  for (const auto& p : plugins.plugins()) {
    json intrinsics = json::array();
    for (const auto& in : p.intrinsics) intrinsics.push_back(IntrinsicToJson(in));
    out.push_back({{"name", p.entry.name}, {"library", p.library_path}, {"abi", p.abi}, {"abi_minor", p.abi_minor},
                   {"sha256", p.library_sha256}, {"target", p.target.name},
                   {"description", p.target.description}, {"hardware", HardwareToJson(p.target.hardware)},
                   {"template_dims", p.plugin->TemplateDimNames()},
                   {"importers", p.plugin->Importers()}, {"task_suites", p.plugin->TaskSuites()},
                   {"intrinsics", intrinsics}});
  }
  return {{"plugins", out}};
}

}  // namespace ucmoh::registry
