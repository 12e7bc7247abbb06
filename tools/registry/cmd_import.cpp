// registry import FORMAT FILE... -o OUT.jsonl: foreign measurements -> records,
// through the plugin that offers the importer.
#include <fmt/format.h>

#include "commands.h"
#include "ucmoh/records_io.h"

namespace ucmoh::cli {

namespace {

struct ImportArgs {
  std::string format;
  std::vector<std::string> files;
  std::string output;
};

Expected<const LoadedPlugin*> ImporterFor(const PluginSet& plugins, const std::string& format) {
  std::string known;
  for (const auto& p : plugins.plugins()) {
    for (const auto& name : p.plugin->Importers()) {
      if (name == format) return &p;
      known += (known.empty() ? "" : ", ") + name;
    }
  }
  return Status::NotFound("no loaded plugin imports '" + format + "' (known: " + known + ")");
}

int RunImport(const GlobalOptions& global, const ImportArgs& args) {
  auto plugins = Plugins(global);
  if (!plugins.ok()) return Fail(plugins.status());
  auto importer = ImporterFor(**plugins, args.format);
  if (!importer.ok()) return Fail(importer.status());
  std::vector<Record> all;
  for (const auto& file : args.files) {
    auto records = (*importer)->plugin->Import(args.format, file);
    if (!records.ok()) return Fail(records.status());
    fmt::print(stderr, "{}: {} records\n", file, records->size());
    all.insert(all.end(), records->begin(), records->end());
  }
  Status written = WriteRecordsFile(args.output, all);
  if (!written.ok()) return Fail(written);
  fmt::print("imported {} records into {}\n", all.size(), args.output);
  return 0;
}

}  // namespace

Command AddImportCommand(CLI::App& app, const GlobalOptions& global) {
  auto* sub = app.add_subcommand("import", "Convert foreign measurement files (e.g. CUTLASS profiler CSV) to records");
  auto args = std::make_shared<ImportArgs>();
  sub->add_option("format", args->format, "Importer name, e.g. cutlass")->required();
  sub->add_option("files", args->files, "Files to import")->required()->check(CLI::ExistingFile);
  sub->add_option("-o,--output", args->output, "Records file to write (JSON Lines)")->required();
  return {sub, [&global, args]() { return RunImport(global, *args); }};
}

}  // namespace ucmoh::cli
