// registry features FILE.jsonl... [--json]: lower and featurize every record,
// report per intrinsic, and name every record that failed with its line.
// --dump-ast prints every record as a program in the AST JSON form instead
// (docs/ast-json.md), one per line: what `predict --ast` and libucmoh read.
// --dump-tokens prints every record's token matrix (docs/features.md) beside
// its task, intrinsic and latency, one per line: for models outside the project.
#include <fmt/format.h>

#include <functional>
#include <map>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "ucmoh/ast_program.h"
#include "ucmoh/features.h"
#include "ucmoh/program_featurizer.h"
#include "ucmoh/records_io.h"

namespace ucmoh::cli {

namespace {

struct FeaturesArgs {
  std::vector<std::string> files;
  bool json = false;
  bool schema = false;
  int64_t show_line = 0;
  bool dump_ast = false;
  bool dump_tokens = false;
};

struct IntrinsicSummary {
  int64_t records = 0, failed = 0, tokens = 0;
  int min_tokens = 1 << 30, max_tokens = 0;
  int MinTokens() const { return records > failed ? min_tokens : 0; }  // 0 when none featurized
};

struct Failure {
  std::string file;
  int64_t line;
  std::string message;
};

int PrintSchema(bool json) {
  if (json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& d : FeatureSchema()) out.push_back({{"name", d.name}, {"description", d.description}});
    fmt::print("{}\n", nlohmann::json{{"version", kFeatureSchemaVersion}, {"dims", out}}.dump(2));
    return 0;
  }
  fmt::print("| # | name | how it is computed |\n|---|---|---|\n");
  int i = 0;
  for (const auto& d : FeatureSchema()) fmt::print("| {} | `{}` | {} |\n", i++, d.name, d.description);
  return 0;
}

void PrintReport(const std::map<std::string, IntrinsicSummary>& by_intrinsic,
                 const std::vector<Failure>& failures, bool json) {
  if (json) {
    nlohmann::json out = {{"feature_dim", kFeatureDim}, {"schema_version", kFeatureSchemaVersion}};
    for (const auto& [name, s] : by_intrinsic)
      out["intrinsics"][name] = {{"records", s.records}, {"failed", s.failed}, {"tokens", s.tokens},
                                 {"min_tokens", s.MinTokens()}, {"max_tokens", s.max_tokens}};
    for (const auto& f : failures)
      out["failures"].push_back({{"file", f.file}, {"line", f.line}, {"error", f.message}});
    fmt::print("{}\n", out.dump(2));
    return;
  }
  fmt::print("{:<26} {:>8} {:>7} {:>10} {:>12} {:>6}\n", "intrinsic", "records", "failed",
             "tokens", "tokens/prog", "width");
  for (const auto& [name, s] : by_intrinsic)
    fmt::print("{:<26} {:>8} {:>7} {:>10} {:>5}..{:<6} {:>6}\n", name, s.records, s.failed, s.tokens,
               s.MinTokens(), s.max_tokens, kFeatureDim);
  for (const auto& f : failures) fmt::print("failed: {}:{}: {}\n", f.file, f.line, f.message);
}

// One JSON line per record from `line_of`, printed only when every record
// gave one: a failure names its FILE:LINE and leaves the output empty.
using LineOf = std::function<Expected<std::string>(const std::string& file, int64_t line, const Record&)>;

int DumpEachRecord(const std::vector<std::string>& files, const LineOf& line_of) {
  std::string out;
  for (const auto& file : files) {
    auto records = ReadRecordsFile(file);
    if (!records.ok()) return Fail(records.status());
    for (const auto& [line, record] : *records) {
      auto text = line_of(file, line, record);
      if (!text.ok()) return Fail(text.status().WithContext(fmt::format("{}:{}", file, line)));
      out += *text + "\n";
    }
  }
  fmt::print("{}", out);
  return 0;
}

// The record as an AST JSON program.
Expected<std::string> AstLine(const PluginSet& plugins, const Record& record) {
  auto program = RecordAsAstProgram(plugins, record);
  if (!program.ok()) return program.status();
  return AstProgramToJson(*program).dump();
}

// The record's tokens beside where it came from and its latency.
Expected<std::string> TokensLine(const PluginSet& plugins, const std::string& file, int64_t line,
                                 const Record& record) {
  auto tokens = FeaturizeRecord(plugins, record);
  if (!tokens.ok()) return tokens.status();
  nlohmann::json rows = nlohmann::json::array();
  for (int t = 0; t < tokens->num_tokens; ++t)
    rows.push_back(std::vector<float>(tokens->row(t), tokens->row(t) + kFeatureDim));
  return nlohmann::json{{"file", file},
                        {"line", line},
                        {"task", record.task.key},
                        {"intrinsic", record.intrinsic},
                        {"latency_s", record.latency.median_s},
                        {"tokens", std::move(rows)}}
      .dump();
}

int RunFeatures(const GlobalOptions& global, const FeaturesArgs& args) {
  if (args.schema) return PrintSchema(args.json);
  if (args.files.empty()) return Fail(Status::InvalidArgument("features: give records files (or --schema)"));
  auto plugins = Plugins(global);
  if (!plugins.ok()) return Fail(plugins.status());
  const PluginSet& loaded = **plugins;
  if (args.dump_ast)
    return DumpEachRecord(args.files, [&](const std::string&, int64_t, const Record& r) { return AstLine(loaded, r); });
  if (args.dump_tokens)
    return DumpEachRecord(args.files, [&](const std::string& file, int64_t line, const Record& r) {
      return TokensLine(loaded, file, line, r);
    });
  std::map<std::string, IntrinsicSummary> by_intrinsic;
  std::vector<Failure> failures;
  for (const auto& file : args.files) {
    auto records = ReadRecordsFile(file);
    if (!records.ok()) return Fail(records.status());
    for (const auto& [line, record] : *records) {
      if (args.show_line == line) {
        auto ast = LowerRecord(**plugins, record);
        fmt::print("{}", ast.ok() ? DumpAst(*ast) : ast.status().message() + "\n");
      }
      IntrinsicSummary& s = by_intrinsic[record.intrinsic];
      ++s.records;
      auto tokens = FeaturizeRecord(**plugins, record);
      if (!tokens.ok()) {
        ++s.failed;
        failures.push_back({file, line, tokens.status().message()});
        continue;
      }
      s.tokens += tokens->num_tokens;
      s.min_tokens = std::min(s.min_tokens, tokens->num_tokens);
      s.max_tokens = std::max(s.max_tokens, tokens->num_tokens);
    }
  }
  PrintReport(by_intrinsic, failures, args.json);
  return failures.empty() ? 0 : 1;
}

}  // namespace

Command AddFeaturesCommand(CLI::App& app, const GlobalOptions& global) {
  auto* sub = app.add_subcommand("features", "Lower and featurize records; report token counts and failures");
  auto args = std::make_shared<FeaturesArgs>();
  sub->add_option("files", args->files, "Records files (JSON Lines)")->check(CLI::ExistingFile);
  sub->add_flag("--json", args->json, "Print JSON");
  sub->add_flag("--schema", args->schema, "Print the feature schema (every dimension) and exit");
  sub->add_option("--show-ast", args->show_line, "Also print the AST of the record on this line, readably");
  sub->add_flag("--dump-ast", args->dump_ast, "Print every record as an AST JSON program, one per line (docs/ast-json.md)");
  sub->add_flag("--dump-tokens", args->dump_tokens,
                "Print every record's token matrix with its task, intrinsic and latency, one JSON line each")
      ->excludes("--dump-ast");
  return {sub, [&global, args]() { return RunFeatures(global, *args); }};
}

}  // namespace ucmoh::cli
