// registry records add FILE... | registry records import FORMAT FILE...:
// records into the registry, every line checked against the plugins first.
#include <fmt/format.h>

#include "cli_store.h"
#include "commands.h"
#include "ucmoh/registry/registry_ops.h"

namespace ucmoh::cli {

namespace {

struct RecordsArgs {
  std::vector<std::string> add_files;
  std::string format;
  std::vector<std::string> import_files;
};

int Report(const Expected<registry::RecordsIngestResult>& r) {
  if (!r.ok()) return Fail(r.status());
  for (const auto& [name, n] : r->by_intrinsic) fmt::print("{:<24} {:>8} records\n", name, n);
  fmt::print("stored {} records ({} new, {} replaced)\n", r->read, r->stored.added, r->stored.replaced);
  return 0;
}

}  // namespace

Command AddRecordsCommand(CLI::App& app, const GlobalOptions& global) {
  auto* sub = app.add_subcommand("records", "Add records to the registry");
  sub->require_subcommand(1);
  auto args = std::make_shared<RecordsArgs>();
  auto* add = sub->add_subcommand("add", "Add JSONL records files (all lines checked first; nothing written on error)");
  add->add_option("files", args->add_files, "Records files (JSON Lines)")->required()->check(CLI::ExistingFile);
  auto* imp = sub->add_subcommand("import", "Import foreign measurement files, e.g. CUTLASS profiler CSV");
  imp->add_option("format", args->format, "Importer name, e.g. cutlass")->required();
  imp->add_option("files", args->import_files, "Files to import")->required()->check(CLI::ExistingFile);
  return {sub, [&global, args, add]() {
            auto plugins = Plugins(global);
            if (!plugins.ok()) return Fail(plugins.status());
            auto store = OpenStore(global, registry::OpenMode::kReadWrite);
            if (!store.ok()) return Fail(store.status());
            if (add->parsed()) return Report(registry::AddRecordsFiles(**store, **plugins, args->add_files));
            return Report(registry::ImportRecordsFiles(**store, **plugins, args->format, args->import_files));
          }};
}

}  // namespace ucmoh::cli
