// Registry store subcommands: init, intrinsics, versions, show, eval, alias,
// events, verify, gc. Each opens the store (read-only where it only reads).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <ctime>
#include <map>
#include <nlohmann/json.hpp>

#include "cli_store.h"
#include "commands.h"
#include "ucmoh/registry/registry_ops.h"

namespace ucmoh::cli {

namespace {

using registry::OpenMode;

std::string When(int64_t t) {
  if (t == 0) return "-";
  std::time_t tt = static_cast<std::time_t>(t);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", std::gmtime(&tt));
  return buf;
}

nlohmann::json VersionJson(const registry::ModelVersion& v) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& r : v.evaluation.rows)
    rows.push_back({{"intrinsic", r.intrinsic}, {"pca", r.pca}, {"top1", r.top1}, {"top5", r.top5}});
  nlohmann::json hp = nlohmann::json::object();
  for (const auto& [k, p] : v.hyper_parameters) std::visit([&](const auto& x) { hp[k] = x; }, p);
  return {{"version", v.number}, {"name", v.name}, {"parent", v.parent}, {"intrinsics", v.intrinsics},
          {"acc", v.evaluation.acc}, {"bwt", v.evaluation.bwt}, {"evaluation", rows},
          {"hyper_parameters", hp}, {"created_at", v.created_at}, {"tool_version", v.tool_version},
          {"weights_sha256", v.weights_sha256}, {"snapshot_sha256s", v.snapshot_sha256s},
          {"training_data_digest", v.training_data_digest}};
}

int RunInit(const GlobalOptions& global) {
  auto store = OpenStore(global, OpenMode::kCreate);
  if (!store.ok()) return Fail(store.status());
  fmt::print("registry at {} (schema {})\n", (*store)->path(), (*store)->schema_version());
  return 0;
}

int RunIntrinsics(const GlobalOptions& global, bool json) {
  auto plugins = Plugins(global);
  if (!plugins.ok()) return Fail(plugins.status());
  auto store = OpenStore(global, OpenMode::kReadOnly);
  if (!store.ok()) return Fail(store.status());
  struct Row { std::string name, plugin; int64_t records = 0, learned = 0; bool loaded = false; };
  std::map<std::string, Row> rows;
  for (const auto& p : (*plugins)->plugins())
    for (const auto& i : p.intrinsics) rows[i.name] = {i.name, p.entry.name, 0, 0, true};
  auto entries = (*store)->ListIntrinsics();
  if (!entries.ok()) return Fail(entries.status());
  for (const auto& e : *entries) {
    auto& r = rows[e.name];
    r.name = e.name;
    if (r.plugin.empty()) r.plugin = e.plugin;
    r.learned = e.learned_in_version;
  }
  for (auto& [name, r] : rows) {
    auto n = (*store)->CountRecords(name);
    r.records = n.ok() ? *n : 0;
  }
  if (json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& [name, r] : rows)
      out.push_back({{"intrinsic", name}, {"plugin", r.plugin}, {"plugin_loaded", r.loaded},
                     {"records", r.records}, {"learned_in_version", r.learned}});
    fmt::print("{}\n", out.dump(2));
    return 0;
  }
  fmt::print("{:<24} {:<12} {:>8} {:>8}\n", "intrinsic", "plugin", "records", "learned");
  for (const auto& [name, r] : rows)
    fmt::print("{:<24} {:<12} {:>8} {:>8}\n", name, r.plugin + (r.loaded ? "" : " (not loaded)"), r.records,
               r.learned ? "v" + std::to_string(r.learned) : std::string("-"));
  return 0;
}

int RunVersions(const GlobalOptions& global, bool json) {
  auto store = OpenStore(global, OpenMode::kReadOnly);
  if (!store.ok()) return Fail(store.status());
  auto versions = (*store)->ListVersions();
  if (!versions.ok()) return Fail(versions.status());
  auto aliases = (*store)->ListAliases();
  std::map<int64_t, std::vector<std::string>> names;
  if (aliases.ok())
    for (const auto& a : *aliases) names[a.version].push_back(a.name);
  if (json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& v : *versions) {
      auto j = VersionJson(v);
      j["aliases"] = names[v.number];
      out.push_back(j);
    }
    fmt::print("{}\n", out.dump(2));
    return 0;
  }
  fmt::print("{:>7} {:>6} {:>7} {:>8} {:<20} {:<16} {}\n", "version", "parent", "ACC", "BWT", "created", "aliases",
             "intrinsics");
  for (const auto& v : *versions)
    fmt::print("{:>7} {:>6} {:>7.4f} {:>+8.4f} {:<20} {:<16} {}\n", v.number, v.parent, v.evaluation.acc,
               v.evaluation.bwt, When(v.created_at), fmt::format("{}", fmt::join(names[v.number], ",")),
               fmt::join(v.intrinsics, ","));
  return 0;
}

int RunShow(const GlobalOptions& global, const std::string& ref) {
  auto store = OpenStore(global, OpenMode::kReadOnly);
  if (!store.ok()) return Fail(store.status());
  auto n = (*store)->ResolveRef(ref);
  if (!n.ok()) return Fail(n.status());
  auto v = (*store)->GetVersion(*n);
  if (!v.ok()) return Fail(v.status());
  auto j = VersionJson(*v);
  auto snaps = (*store)->ListSnapshots(*n);
  if (snaps.ok()) {
    nlohmann::json s = nlohmann::json::array();
    for (const auto& e : *snaps)
      s.push_back({{"name", e.name}, {"intrinsics", e.intrinsics}, {"method", e.method}, {"sha256", e.blob_sha256}});
    j["snapshots"] = s;
  }
  fmt::print("{}\n", j.dump(2));
  return 0;
}

int RunEval(const GlobalOptions& global, const std::string& ref, bool json) {
  auto store = OpenStore(global, OpenMode::kReadOnly);
  if (!store.ok()) return Fail(store.status());
  auto n = (*store)->ResolveRef(ref);
  if (!n.ok()) return Fail(n.status());
  auto m = registry::EvaluationMatrix(**store, *n);
  if (!m.ok()) return Fail(m.status());
  auto cell = [](double x) { return std::isnan(x) ? nlohmann::json(nullptr) : nlohmann::json(x); };
  if (json) {
    nlohmann::json pca = nlohmann::json::array(), top1 = nlohmann::json::array();
    for (size_t i = 0; i < m->versions.size(); ++i) {
      nlohmann::json a = nlohmann::json::array(), b = nlohmann::json::array();
      for (size_t j = 0; j < m->intrinsics.size(); ++j) {
        a.push_back(cell(m->pca[i][j]));
        b.push_back(cell(m->top1[i][j]));
      }
      pca.push_back(a);
      top1.push_back(b);
    }
    fmt::print("{}\n", nlohmann::json({{"versions", m->versions}, {"intrinsics", m->intrinsics}, {"pca", pca},
                                       {"top1", top1}, {"acc", m->acc}, {"bwt", m->bwt}})
                           .dump(2));
    return 0;
  }
  for (int which = 0; which < 2; ++which) {
    const auto& r = which == 0 ? m->pca : m->top1;
    fmt::print("{} (row: version, column: evaluated on held-out tasks of)\n{:<8}", which == 0 ? "PCA" : "top-1",
               "version");
    for (const auto& in : m->intrinsics) fmt::print(" {:>18}", in);
    fmt::print("\n");
    for (size_t i = 0; i < r.size(); ++i) {
      fmt::print("{:<8}", m->versions[i]);
      for (double x : r[i]) fmt::print(" {:>18}", std::isnan(x) ? std::string("-") : fmt::format("{:.4f}", x));
      fmt::print("\n");
    }
  }
  fmt::print("ACC {:.4f}  BWT {:+.4f}\n", m->acc, m->bwt);
  return 0;
}

}  // namespace

Command AddInitCommand(CLI::App& app, const GlobalOptions& global) {
  auto* sub = app.add_subcommand("init", "Create an empty registry (no-op when it exists)");
  return {sub, [&global]() { return RunInit(global); }};
}

Command AddIntrinsicsCommand(CLI::App& app, const GlobalOptions& global) {
  auto* sub = app.add_subcommand("intrinsics", "Intrinsics: plugin, record count, version that learned them");
  auto json = std::make_shared<bool>(false);
  sub->add_flag("--json", *json, "JSON output");
  return {sub, [&global, json]() { return RunIntrinsics(global, *json); }};
}

Command AddVersionsCommand(CLI::App& app, const GlobalOptions& global) {
  auto* sub = app.add_subcommand("versions", "Model versions: parent, intrinsics, ACC, BWT, created");
  auto json = std::make_shared<bool>(false);
  sub->add_flag("--json", *json, "JSON output");
  return {sub, [&global, json]() { return RunVersions(global, *json); }};
}

Command AddShowCommand(CLI::App& app, const GlobalOptions& global) {
  auto* sub = app.add_subcommand("show", "One version in full (JSON)");
  auto ref = std::make_shared<std::string>();
  sub->add_option("ref", *ref, "ucmoh@3 | ucmoh@latest | ucmoh@stable | 3")->required();
  // The output is always JSON; the flag is accepted like on every data command.
  sub->add_flag("--json", "Print JSON (the default and only format)");
  return {sub, [&global, ref]() { return RunShow(global, *ref); }};
}

Command AddEvalCommand(CLI::App& app, const GlobalOptions& global) {
  auto* sub = app.add_subcommand("eval", "The lifelong matrix R across a version's lineage (stored evaluations)");
  auto ref = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  sub->add_option("ref", *ref, "Version ref")->required();
  sub->add_flag("--json", *json, "JSON output");
  return {sub, [&global, ref, json]() { return RunEval(global, *ref, *json); }};
}

Command AddAliasCommand(CLI::App& app, const GlobalOptions& global) {
  auto* sub = app.add_subcommand("alias", "Set or remove a named pointer to a version");
  sub->require_subcommand(1);
  auto name = std::make_shared<std::string>();
  auto ref = std::make_shared<std::string>();
  auto* set = sub->add_subcommand("set", "alias set NAME REF");
  set->add_option("name", *name, "Alias name, e.g. stable")->required();
  set->add_option("ref", *ref, "Version ref")->required();
  auto* rm = sub->add_subcommand("rm", "alias rm NAME");
  rm->add_option("name", *name, "Alias name")->required();
  return {sub, [&global, name, ref, set]() {
            auto store = OpenStore(global, OpenMode::kReadWrite);
            if (!store.ok()) return Fail(store.status());
            if (set->parsed()) {
              auto n = (*store)->ResolveRef(*ref);
              if (!n.ok()) return Fail(n.status());
              Status s = (*store)->SetAlias(*name, *n);
              if (!s.ok()) return Fail(s);
              fmt::print("{} -> version {}\n", *name, *n);
              return 0;
            }
            Status s = (*store)->DeleteAlias(*name);
            if (!s.ok()) return Fail(s);
            fmt::print("removed alias {}\n", *name);
            return 0;
          }};
}

Command AddEventsCommand(CLI::App& app, const GlobalOptions& global) {
  auto* sub = app.add_subcommand("events", "The append-only event log");
  auto json = std::make_shared<bool>(false);
  sub->add_flag("--json", *json, "JSON output");
  return {sub, [&global, json]() {
            auto store = OpenStore(global, OpenMode::kReadOnly);
            if (!store.ok()) return Fail(store.status());
            auto events = (*store)->ListEvents();
            if (!events.ok()) return Fail(events.status());
            nlohmann::json out = nlohmann::json::array();
            for (const auto& e : *events) {
              if (*json)
                out.push_back({{"sequence", e.sequence}, {"at", e.at}, {"kind", e.kind}, {"detail", e.detail}});
              else
                fmt::print("{:>6} {:<20} {:<16} {}\n", e.sequence, When(e.at), e.kind, e.detail);
            }
            if (*json) fmt::print("{}\n", out.dump(2));
            return 0;
          }};
}

Command AddVerifyCommand(CLI::App& app, const GlobalOptions& global) {
  auto* sub = app.add_subcommand("verify", "Check every blob's sha256 and every reference; non-zero exit on problems");
  return {sub, [&global]() {
            auto store = OpenStore(global, OpenMode::kReadOnly);
            if (!store.ok()) return Fail(store.status());
            auto problems = (*store)->Verify();
            if (!problems.ok()) return Fail(problems.status());
            for (const auto& p : *problems) fmt::print(stderr, "problem: {}\n", p);
            if (!problems->empty()) {
              fmt::print(stderr, "error: {} problem(s) found\n", problems->size());
              return 2;
            }
            fmt::print("registry is consistent\n");
            return 0;
          }};
}

Command AddGcCommand(CLI::App& app, const GlobalOptions& global) {
  auto* sub = app.add_subcommand("gc", "Delete blobs no version or snapshot references");
  return {sub, [&global]() {
            auto store = OpenStore(global, OpenMode::kReadWrite);
            if (!store.ok()) return Fail(store.status());
            auto r = (*store)->GarbageCollect();
            if (!r.ok()) return Fail(r.status());
            fmt::print("deleted {} blobs ({} bytes)\n", r->blobs_deleted, r->bytes_deleted);
            return 0;
          }};
}

}  // namespace ucmoh::cli
