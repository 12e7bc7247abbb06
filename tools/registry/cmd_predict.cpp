// registry predict --model REF (--data FILE.jsonl | --ast FILE) [--json]:
// scores of a registry version for records or for programs given as ASTs
// (docs/ast-json.md), and PCA / top-k when every program carries a latency.
#include <fmt/format.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "cli_store.h"
#include "commands.h"
#include "metrics_table.h"
#include "ucmoh/ast_program.h"
#include "ucmoh/features.h"
#include "ucmoh/file_bytes.h"
#include "ucmoh/records_io.h"
#include "ucmoh/registry/registry_ops.h"

namespace ucmoh::cli {

namespace {

struct PredictArgs {
  std::string ref = "ucmoh@latest";
  std::string data;
  std::string ast;
  std::string export_tokens;
  std::string precision = "float32";
  bool json = false;
};

// The padded token tensor, its mask and the scores, as JSON, so a compiler
// can check a pulled model.pt against this tool: forward(tokens, valid) must
// give `scores` (tools/demo does this with Python's torch.jit.load).
Status ExportTokens(const std::string& path, const ProgramSet& set, const std::vector<float>& scores) {
  const int tokens_per_program = set.max_tokens();
  nlohmann::json tokens = nlohmann::json::array(), valid = nlohmann::json::array();
  for (const auto& m : set.tokens) {
    nlohmann::json rows = nlohmann::json::array(), mask = nlohmann::json::array();
    for (int t = 0; t < tokens_per_program; ++t) {
      rows.push_back(t < m.num_tokens ? std::vector<float>(m.row(t), m.row(t) + kFeatureDim)
                                      : std::vector<float>(kFeatureDim, 0.f));
      mask.push_back(t < m.num_tokens ? 1 : 0);
    }
    tokens.push_back(std::move(rows));
    valid.push_back(std::move(mask));
  }
  std::ofstream out(path);
  out << nlohmann::json{{"tokens", tokens}, {"valid", valid}, {"scores", scores}}.dump();
  if (!out) return Status::IOError(path + ": cannot write tokens");
  return Status::Ok();
}

// The programs to score, each with the line it came from.
struct PredictInput {
  ProgramSet set;
  std::vector<int64_t> lines;
};

Expected<PredictInput> ReadRecordsInput(const PluginSet& plugins, const std::string& path) {
  auto records = ReadRecordsFile(path);
  if (!records.ok()) return records.status();
  std::vector<Record> plain;
  PredictInput in;
  for (const auto& r : *records) {
    plain.push_back(r.record);
    in.lines.push_back(r.line);
  }
  std::vector<FeaturizeFailure> failures;
  auto set = BuildProgramSet(plugins, plain, &failures);
  if (!failures.empty())
    return Status::InvalidArgument(fmt::format("{}:{}: record does not lower: {}", path,
                                               (*records)[failures.front().index].line, failures.front().message));
  if (!set.ok()) return set.status();
  in.set = std::move(*set);
  return in;
}

Expected<PredictInput> ReadAstInput(const PluginSet& plugins, const std::string& path) {
  auto text = ReadFileBytes(path);
  if (!text.ok()) return text.status();
  auto programs = ParseAstPrograms(*text, plugins);
  if (!programs.ok()) return programs.status().WithContext(path);
  auto set = AstProgramSet(plugins, *programs);
  if (!set.ok()) return set.status().WithContext(path);
  PredictInput in{std::move(*set), {}};
  for (size_t i = 0; i < in.set.size(); ++i) in.lines.push_back(static_cast<int64_t>(i) + 1);
  return in;
}

int Run(const GlobalOptions& global, const PredictArgs& args) {
  if (args.data.empty() == args.ast.empty()) return Fail(Status::InvalidArgument("predict: give one of --data and --ast"));
  auto plugins = Plugins(global);
  if (!plugins.ok()) return Fail(plugins.status());
  auto store = OpenStore(global, registry::OpenMode::kReadOnly);
  if (!store.ok()) return Fail(store.status());
  auto number = (*store)->ResolveRef(args.ref);
  if (!number.ok()) return Fail(number.status());
  auto model = registry::LoadVersionModel(**store, *number);
  if (!model.ok()) return Fail(model.status());
  auto input = args.ast.empty() ? ReadRecordsInput(**plugins, args.data) : ReadAstInput(**plugins, args.ast);
  if (!input.ok()) return Fail(input.status());
  const ProgramSet* set = &input->set;
  auto precision = ParseScoringPrecision(args.precision);
  if (!precision.ok()) return Fail(precision.status());
  PredictOptions options;
  options.precision = *precision;
  auto scores = model->Predict(*set, options);
  if (!scores.ok()) return Fail(scores.status());
  if (!args.export_tokens.empty()) {
    Status exported = ExportTokens(args.export_tokens, *set, *scores);
    if (!exported.ok()) return Fail(exported);
  }
  bool timed = true;
  for (double l : set->latency_s) timed = timed && l > 0;
  if (args.json) {
    nlohmann::json out = {{"version", *number}, {"scores", *scores}};
    if (timed) out["metrics"] = MetricsTableJson(ComputeMetricsTable(*set, *scores));
    fmt::print("{}\n", out.dump(2));
    return 0;
  }
  for (size_t i = 0; i < scores->size(); ++i)
    fmt::print("{}\t{}\t{:.6f}\n", input->lines[i], set->tasks[set->task[i]].key, (*scores)[i]);
  if (timed) PrintMetricsTable(ComputeMetricsTable(*set, *scores), fmt::format("version {}", *number));
  return 0;
}

}  // namespace

Command AddPredictCommand(CLI::App& app, const GlobalOptions& global) {
  auto* sub = app.add_subcommand("predict", "Score records with a registry version");
  auto args = std::make_shared<PredictArgs>();
  sub->add_option("--model", args->ref, "Version ref")->capture_default_str();
  sub->add_option("--data", args->data, "Records file (JSON Lines)")->check(CLI::ExistingFile);
  sub->add_option("--ast", args->ast, "Programs as ASTs (a JSON array or JSON Lines, docs/ast-json.md)")
      ->check(CLI::ExistingFile);
  sub->add_flag("--json", args->json, "JSON output");
  sub->add_option("--precision", args->precision, "float32 | bf16 (bfloat16 matmuls: faster on AMX / AVX-512 BF16 "
                                                  "CPUs, scores differ by CPU; docs/benchmarks.md)")
      ->capture_default_str();
  sub->add_option("--export-tokens", args->export_tokens,
                  "Also write the padded tokens, mask and scores as JSON (to check a pulled model.pt)");
  return {sub, [&global, args]() { return Run(global, *args); }};
}

}  // namespace ucmoh::cli
