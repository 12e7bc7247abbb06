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
#include "ucmoh/registry/registry_json.h"
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
  auto rows = registry::IntrinsicsJson(**store, **plugins);
  if (!rows.ok()) return Fail(rows.status());
  if (json) {
    fmt::print("{}\n", rows->dump(2));
    return 0;
  }
  fmt::print("{:<24} {:<12} {:>8} {:>8}\n", "intrinsic", "plugin", "records", "learned");
  for (const auto& r : *rows) {
    const int64_t learned = r["learned_in_version"];
    fmt::print("{:<24} {:<12} {:>8} {:>8}\n", r["intrinsic"].get<std::string>(),
               r["plugin"].get<std::string>() + (r["plugin_loaded"] ? "" : " (not loaded)"), r["records"].get<int64_t>(),
               learned ? "v" + std::to_string(learned) : std::string("-"));
  }
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
    auto out = registry::VersionsJson(**store);
    if (!out.ok()) return Fail(out.status());
    fmt::print("{}\n", out->dump(2));
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
  auto j = registry::VersionDetailJson(**store, *n);
  if (!j.ok()) return Fail(j.status());
  fmt::print("{}\n", j->dump(2));
  return 0;
}

int RunEval(const GlobalOptions& global, const std::string& ref, bool json) {
  auto store = OpenStore(global, OpenMode::kReadOnly);
  if (!store.ok()) return Fail(store.status());
  auto n = (*store)->ResolveRef(ref);
  if (!n.ok()) return Fail(n.status());
  auto m = registry::EvaluationMatrix(**store, *n);
  if (!m.ok()) return Fail(m.status());
  if (json) {
    fmt::print("{}\n", registry::EvaluationMatrixToJson(*m).dump(2));
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
            if (*json) {
              fmt::print("{}\n", registry::EventsToJson(*events).dump(2));
              return 0;
            }
            for (const auto& e : *events) fmt::print("{:>6} {:<20} {:<16} {}\n", e.sequence, When(e.at), e.kind, e.detail);
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
