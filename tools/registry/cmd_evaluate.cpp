// registry evaluate --model MODEL | --baseline xgb|xgb-reg|mlp --data FILE...:
// ranking metrics per intrinsic on the held-out half of a split. Baselines are
// trained on the train half of the same split, so every row is comparable.
// --scores FILE keeps every held-out program's score beside its latency, so
// per-task or per-operator comparisons and ensembles need no second run.
#include <fmt/format.h>

#include <chrono>

#include "cli_data.h"
#include "commands.h"
#include "ucmoh/task_split.h"
#include "metrics_table.h"
#include "ucmoh/cost_model.h"
#include "ucmoh/file_bytes.h"
#include "ucmoh/training.h"
#include "ucmoh/xgboost_baseline.h"

namespace ucmoh::cli {

namespace {

struct EvaluateArgs {
  DataArgs data;
  std::string model, baseline;
  std::string precision = "float32";  // --model: the scoring arithmetic
  int epochs = 60;
  uint64_t seed = 0;
  double fraction = 1.0;  // of the training tasks a baseline trains on
  bool json = false;
  std::string scores_file;  // --scores: one JSON line per held-out program
};

Expected<std::vector<float>> ScoreWithModel(const EvaluateArgs& args, const ProgramSet& test) {
  PredictOptions options;
  auto precision = ParseScoringPrecision(args.precision);
  if (!precision.ok()) return precision.status();
  options.precision = *precision;
  auto model = CostModel::Load(args.model);
  if (!model.ok()) return model.status();
  return model->Predict(test, options);
}

Expected<std::vector<float>> ScoreWithBaseline(const EvaluateArgs& args, const ProgramSet& train,
                                               const ProgramSet& test) {
  if (args.baseline == "mlp") {
    NetworkConfig config;
    config.architecture = "mlp";
    config.max_tokens = std::max(train.max_tokens(), test.max_tokens());
    config.seed = args.seed;
    auto model = CostModel::Create(config);
    if (!model.ok()) return model.status();
    TrainOptions options;
    options.epochs = args.epochs;
    options.seed = args.seed;
    auto report = Train(*model, train, options);
    if (!report.ok()) return report.status();
    return model->Predict(test);
  }
  if (args.baseline != "xgb" && args.baseline != "xgb-reg")
    return Status::InvalidArgument("--baseline must be xgb, xgb-reg or mlp, not '" + args.baseline + "'");
  XgbOptions options;
  options.objective = args.baseline == "xgb" ? XgbObjective::kRank : XgbObjective::kReg;
  options.seed = args.seed;
  options.max_tokens = std::max(train.max_tokens(), test.max_tokens());
  auto model = TrainXgb(train, options);
  if (!model.ok()) return model.status();
  return model->Predict(test);
}

// One JSON line per program, in the set's order: its key, task, the hardware
// that timed it (its ranking group is task + hardware, TaskGroup), intrinsic,
// measured latency and score. Written whole or not at all.
Status WriteScores(const std::string& path, const ProgramSet& test, const std::vector<float>& scores) {
  std::string lines;
  for (size_t p = 0; p < test.size(); ++p) {
    const TaskGroup& task = test.tasks[test.task[p]];
    lines += nlohmann::json{{"program", test.ProgramKeyAt(static_cast<int32_t>(p))},
                            {"task", task.key},
                            {"hardware", task.hardware},
                            {"intrinsic", task.intrinsic},
                            {"latency_s", test.latency_s[p]},
                            {"score", scores[p]}}
                 .dump();
    lines += '\n';
  }
  return WriteFileAtomically(path, lines);
}

int RunEvaluate(const GlobalOptions& global, const EvaluateArgs& args) {
  if (args.model.empty() == args.baseline.empty())
    return Fail(Status::InvalidArgument("evaluate: give exactly one of --model MODEL or --baseline NAME"));
  auto set = LoadProgramSet(global, args.data);
  if (!set.ok()) return Fail(set.status());
  auto halves = SplitProgramSet(*set, args.data);
  if (!halves.ok()) return Fail(halves.status());
  const ProgramSet& test = args.data.split == "none" ? halves->train : halves->test;
  const auto start = std::chrono::steady_clock::now();
  if (args.fraction < 1.0 && !args.model.empty())
    return Fail(Status::InvalidArgument("evaluate: --fraction applies to --baseline training only"));
  auto scores = args.model.empty() ? ScoreWithBaseline(args, KeepTrainingTasks(halves->train, args.fraction, args.seed), test)
                                   : ScoreWithModel(args, test);
  if (!scores.ok()) return Fail(scores.status());
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!args.scores_file.empty()) {
    if (auto written = WriteScores(args.scores_file, test, *scores); !written.ok()) return Fail(written);
  }
  const MetricsTable table = ComputeMetricsTable(test, *scores);
  const std::string what = args.model.empty() ? "baseline " + args.baseline : args.model;
  if (args.json) {
    nlohmann::json out = MetricsTableJson(table);
    out["evaluated"] = what;
    out["split"] = args.data.split;
    out["seconds"] = seconds;
    out["held_out_tasks"] = TaskKeys(test);  // which tasks the split held out (tools/ms_baselines.py reuses them)
    fmt::print("{}\n", out.dump(2));
    return 0;
  }
  PrintMetricsTable(table, fmt::format("{} on held-out programs ({} split, {:.1f}s):", what, args.data.split, seconds));
  return 0;
}

}  // namespace

Command AddEvaluateCommand(CLI::App& app, const GlobalOptions& global) {
  auto* sub = app.add_subcommand("evaluate", "PCA / top-1 / top-5 / NDCG per intrinsic of a model or a baseline");
  auto args = std::make_shared<EvaluateArgs>();
  AddDataOptions(*sub, args->data);
  sub->add_option("--model", args->model, "Model file to evaluate")->check(CLI::ExistingFile);
  sub->add_option("--precision", args->precision, "--model: float32 | bf16 (bfloat16 matmuls, docs/benchmarks.md)")
      ->capture_default_str();
  sub->add_option("--baseline", args->baseline, "Train and evaluate a baseline instead: xgb (rank:pairwise, "
                                                "AutoTVM), xgb-reg (MetaSchedule), mlp (flattened tokens)");
  sub->add_option("--epochs", args->epochs, "Epochs for the mlp baseline")->capture_default_str();
  sub->add_option("--seed", args->seed, "Baseline training seed")->capture_default_str();
  sub->add_option("--fraction", args->fraction, "Train the baseline on this fraction of the training tasks "
                                                "(the tasks train --fraction keeps for the same --seed)")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  sub->add_option("--scores", args->scores_file,
                  "Also write every held-out program's score (JSON Lines: program, task, intrinsic, latency_s, score)");
  sub->add_flag("--json", args->json, "Print JSON");
  return {sub, [&global, args]() { return RunEvaluate(global, *args); }};
}

}  // namespace ucmoh::cli
