// The HTML pages (pages.h).
#include "pages.h"

#include <map>
#include <variant>

#include "html.h"
#include "svg_charts.h"
#include "ucmoh/registry/registry_json.h"
#include "ucmoh/registry/registry_ops.h"

namespace ucmoh::server {

using html::Escape;

namespace {

std::string Cell(const std::string& text, bool number = false) {
  return std::string(number ? "<td class=\"num\">" : "<td>") + text + "</td>";
}

std::string Row(const std::vector<std::string>& cells) {
  std::string out = "<tr>";
  for (const auto& c : cells) out += c;
  return out + "</tr>";
}

std::string Head(const std::vector<std::string>& names) {
  std::string out = "<tr>";
  for (const auto& n : names) out += "<th>" + Escape(n) + "</th>";
  return out + "</tr>";
}

std::string AliasTags(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += "<span class=\"alias\">@" + Escape(n) + "</span>";
  return out;
}

std::string ParamText(const Param& value) {
  return std::visit([](const auto& x) {
    if constexpr (std::is_same_v<std::decay_t<decltype(x)>, std::string>) return x;
    else return nlohmann::json(x).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }, value);
}

std::string MetricsTable(const registry::ModelVersion& v) {
  std::string rows = Head({"intrinsic", "PCA", "top-1", "top-5"});
  for (const auto& r : v.evaluation.rows)
    rows += Row({Cell(Escape(r.intrinsic)), Cell(html::Metric(r.pca), true), Cell(html::Metric(r.top1), true),
                 Cell(html::Metric(r.top5), true)});
  return "<table>" + rows + "</table>";
}

std::string DetailsTables(const registry::ModelVersion& v, const std::vector<registry::SnapshotEntry>& snapshots) {
  std::string hp = Head({"hyper-parameter", "value"});
  for (const auto& [k, value] : v.hyper_parameters) hp += Row({Cell(Escape(k)), Cell(Escape(ParamText(value)))});
  std::string snaps = Head({"snapshot", "method", "intrinsics", "sha256"});
  for (const auto& s : snapshots) {
    std::string names;
    for (const auto& i : s.intrinsics) names += (names.empty() ? "" : ", ") + i;
    snaps += Row({Cell(Escape(s.name)), Cell(Escape(s.method)), Cell(Escape(names)),
                  Cell("<a href=\"/blobs/" + s.blob_sha256 + "\"><code>" + s.blob_sha256.substr(0, 16) + "</code></a>")});
  }
  return "<h2>Hyper-parameters</h2><table>" + hp + "</table><h2>Forgetting snapshots</h2><table>" + snaps + "</table>";
}

}  // namespace

Expected<std::string> VersionsPage(const registry::RegistryStore& store) {
  auto versions = store.ListVersions();
  if (!versions.ok()) return versions.status();
  auto aliases = registry::AliasNamesByVersion(store);
  if (!aliases.ok()) return aliases.status();
  std::string rows = Head({"version", "parent", "learned", "ACC", "BWT", "created", "aliases"});
  for (auto it = versions->rbegin(); it != versions->rend(); ++it) {
    const auto& v = *it;
    const std::string n = std::to_string(v.number);
    rows += Row({Cell("<a href=\"/versions/" + n + "\">v" + n + "</a>"), Cell(v.parent ? "v" + std::to_string(v.parent) : "-"),
                 Cell(Escape(v.intrinsics.empty() ? "" : v.intrinsics.back()) + " <span class=\"muted\">(" +
                      std::to_string(v.intrinsics.size()) + " in all)</span>"),
                 Cell(html::Metric(v.evaluation.acc), true), Cell(html::SignedMetric(v.evaluation.bwt), true),
                 Cell(html::Time(v.created_at)), Cell(AliasTags((*aliases)[v.number]))});
  }
  std::string body = "<h1>Versions</h1>";
  if (versions->empty()) body += "<p>No versions yet: <code>registry add-intrinsic NAME</code> learns the first.</p>";
  else body += "<h2>Lineage</h2>" + LineageSvg(*versions, *aliases) + "<h2>All versions</h2><table>" + rows + "</table>";
  return html::Page("Versions", body);
}

Expected<std::string> VersionPage(const registry::RegistryStore& store, const std::string& ref) {
  auto number = store.ResolveRef(ref);
  if (!number.ok()) return number.status();
  auto v = store.GetVersion(*number);
  if (!v.ok()) return v.status();
  auto m = registry::EvaluationMatrix(store, *number);
  if (!m.ok()) return m.status();
  auto snapshots = store.ListSnapshots(*number);
  if (!snapshots.ok()) return snapshots.status();
  auto aliases = registry::AliasNamesByVersion(store);
  if (!aliases.ok()) return aliases.status();
  const std::string n = std::to_string(*number);
  std::string body = "<h1>ucmoh@" + n + " " + AliasTags((*aliases)[*number]) + "</h1><p>" +
                     (v->parent ? "parent <a href=\"/versions/" + std::to_string(v->parent) + "\">v" +
                                      std::to_string(v->parent) + "</a>" : std::string("trained from scratch")) +
                     " \u00b7 created " + html::Time(v->created_at) + " \u00b7 tool " + Escape(v->tool_version) +
                     " \u00b7 <a href=\"/api/versions/" + n + "\">JSON</a></p>" +
                     "<p><b>ACC " + html::Metric(m->acc) + "</b> \u00b7 <b>BWT " + html::SignedMetric(m->bwt) + "</b></p>" +
                     "<h2>R matrix: PCA (row: version, column: held-out tasks of)</h2>" + HeatmapSvg(*m, false) +
                     "<h2>R matrix: top-1</h2>" + HeatmapSvg(*m, true) + "<h2>This version's evaluation</h2>" +
                     MetricsTable(*v) + DetailsTables(*v, *snapshots) +
                     "<h2>Pull</h2><p><code>registry pull http://HOST:PORT/ucmoh@" + n +
                     " -o DIR</code> \u00b7 <a href=\"/api/versions/" + n + "/files\">file index</a></p>";
  return html::Page("ucmoh@" + n, body);
}

Expected<std::string> PluginsPage(const registry::RegistryStore& store, const PluginSet& plugins) {
  auto intrinsics = registry::IntrinsicsJson(store, plugins);
  if (!intrinsics.ok()) return intrinsics.status();
  std::map<std::string, nlohmann::json> by_name;
  for (const auto& i : *intrinsics) by_name[i["intrinsic"].get<std::string>()] = i;
  std::string body = "<h1>Plugins</h1>";
  for (const auto& p : plugins.plugins()) {
    std::string rows = Head({"intrinsic", "instruction", "shape", "types", "records", "learned in"});
    for (const auto& in : p.intrinsics) {
      const auto& j = by_name[in.name];
      const int64_t learned = j.value("learned_in_version", int64_t{0});
      rows += Row({Cell(Escape(in.name)), Cell("<code>" + Escape(in.instruction) + "</code>"),
                   Cell("m" + std::to_string(in.m) + "n" + std::to_string(in.n) + "k" + std::to_string(in.k)),
                   Cell(Escape(in.input_type + " \u2192 " + in.accum_type)),
                   Cell(std::to_string(j.value("records", int64_t{0})), true),
                   Cell(learned ? "<a href=\"/versions/" + std::to_string(learned) + "\">v" + std::to_string(learned) + "</a>"
                                : std::string("-"))});
    }
    body += "<h2>" + Escape(p.entry.name) + " <span class=\"muted\">" + Escape(p.target.description) + " \u00b7 ABI " +
            std::to_string(p.abi) + "." + std::to_string(p.abi_minor) + " \u00b7 " + Escape(p.library_path) +
            "</span></h2><table>" + rows + "</table>";
  }
  return html::Page("Plugins", body);
}

Expected<std::string> EventsPage(const registry::RegistryStore& store) {
  auto events = store.ListEvents();
  if (!events.ok()) return events.status();
  std::string rows = Head({"#", "when", "kind", "detail"});
  for (auto it = events->rbegin(); it != events->rend(); ++it)
    rows += Row({Cell(std::to_string(it->sequence), true), Cell(html::Time(it->at)), Cell(Escape(it->kind)),
                 Cell(Escape(it->detail))});
  return html::Page("Events", "<h1>Events</h1><table>" + rows + "</table>");
}

}  // namespace ucmoh::server
