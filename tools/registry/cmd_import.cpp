// registry import FORMAT FILE... -o OUT.jsonl: foreign measurements -> records,
// through the plugin that offers the importer; or measured programs given as
// ASTs (`ast`: AST JSON Lines with latency_s; `metaschedule`: MetaSchedule
// databases, exported to ASTs by ucmoh.tvm.database), which any plugin that
// takes ASTs featurizes.
#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "commands.h"
#include "ast_records.h"
#include "tvm_python.h"
#include "ucmoh/records_io.h"

namespace ucmoh::cli {

namespace {

struct ImportArgs {
  std::string format;
  std::vector<std::string> files;
  std::string output;
  TvmPythonOptions metaschedule;
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

Expected<std::vector<Record>> MetaScheduleRecords(const PluginSet& plugins, const std::string& dir,
                                                  const TvmPythonOptions& options) {
  namespace fs = std::filesystem;
  char scratch[] = "/tmp/ucmoh-metaschedule.XXXXXX";
  if (!mkdtemp(scratch)) return Status::IOError("cannot make a scratch directory in /tmp");
  const std::string programs = std::string(scratch) + "/programs.jsonl";
  Status exported = ExportMetaScheduleDatabase(dir, programs, options);
  auto records = exported.ok() ? AstRecords(plugins, programs, "imported", fs::absolute(dir).string(), "metaschedule")
                               : Expected<std::vector<Record>>(exported);
  std::error_code ignored;
  fs::remove_all(scratch, ignored);
  return records;
}

Expected<ImportResult> AsImportResult(Expected<std::vector<Record>> records) {
  if (!records.ok()) return records.status();
  ImportResult result;
  result.swap(*records);
  return result;
}

Expected<ImportResult> ImportOne(const PluginSet& plugins, const ImportArgs& args, const std::string& file) {
  if (args.format == "ast") return AsImportResult(AstRecords(plugins, file, "imported", file, "ast"));
  if (args.format == "metaschedule") return AsImportResult(MetaScheduleRecords(plugins, file, args.metaschedule));
  auto importer = ImporterFor(plugins, args.format);
  if (!importer.ok()) return importer.status();
  return (*importer)->plugin->Import(args.format, file);
}

int RunImport(const GlobalOptions& global, const ImportArgs& args) {
  auto plugins = Plugins(global);
  if (!plugins.ok()) return Fail(plugins.status());
  std::vector<Record> all;
  for (const auto& file : args.files) {
    auto records = ImportOne(**plugins, args, file);
    if (!records.ok()) return Fail(records.status());
    std::string skipped;
    for (const auto& [reason, count] : records->skipped) skipped += fmt::format("{}{}: {}", skipped.empty() ? "" : ", ", reason, count);
    fmt::print(stderr, "{}: {} records{}\n", file, records->size(),
               skipped.empty() ? "" : " (not records: " + skipped + ")");
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
  sub->add_option("format", args->format, "Importer: a plugin's (e.g. cutlass), ast, or metaschedule")->required();
  sub->add_option("files", args->files, "Files to import (metaschedule: database directories)")
      ->required()
      ->check(CLI::ExistingPath);
  sub->add_option("--python", args->metaschedule.python,
                  "metaschedule: the Python with TVM (default: $UCMOH_PYTHON, else the project's .venv from tools/setup-tvm)");
  sub->add_option("-o,--output", args->output, "Records file to write (JSON Lines)")->required();
  return {sub, [&global, args]() { return RunImport(global, *args); }};
}

}  // namespace ucmoh::cli
