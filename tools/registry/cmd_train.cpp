// registry train --data FILE... [--from MODEL --mode finetune|extract] -o MODEL:
// trains the UCMoH network (or the MLP baseline) on the train half of a split
// and reports the held-out half.
#include <fmt/format.h>

#include "cli_data.h"
#include "cli_progress.h"
#include "cli_workers.h"
#include "commands.h"
#include "ucmoh/task_split.h"
#include "metrics_table.h"
#include "ucmoh/cost_model.h"
#include "ucmoh/training.h"

namespace ucmoh::cli {

namespace {

struct TrainArgs {
  DataArgs data;
  std::string from, mode, output;
  NetworkConfig network;
  TrainOptions training;
  double fraction = 1.0;  // of the training tasks' programs (data-efficiency studies)
  WorkerFlags workers;
  bool json = false;
};

Expected<CostModel> StartingModel(const TrainArgs& args) {
  if (args.from.empty()) {
    if (!args.mode.empty() && args.mode != "scratch")
      return Status::InvalidArgument("--mode " + args.mode + " needs --from MODEL");
    return CostModel::Create(args.network);
  }
  return CostModel::Load(args.from);
}

int RunTrain(const GlobalOptions& global, TrainArgs& args) {
  auto run = WorkerRun::Start(global, args.workers);
  if (!run.ok()) return Fail(run.status());
  args.training.workers = (*run)->group();
  auto set = LoadProgramSet(global, args.data);
  if (!set.ok()) return Fail(set.status());
  auto halves = SplitProgramSet(*set, args.data);
  if (!halves.ok()) return Fail(halves.status());
  ProgramSet train = KeepTrainingTasks(halves->train, args.fraction, args.training.seed);
  auto model = StartingModel(args);
  if (!model.ok()) return Fail(model.status());
  if (!args.mode.empty()) {
    auto mode = ParseTransferMode(args.mode);
    if (!mode.ok()) return Fail(mode.status());
    args.training.mode = *mode;
  } else {
    args.training.mode = args.from.empty() ? TransferMode::kScratch : TransferMode::kFinetune;
  }
  ProgressLine progress(!args.json && (*run)->writes());
  args.training.on_epoch = [&](const EpochReport& e) {
    progress.Show(fmt::format("epoch {}/{}  loss {:.4f}  val PCA {:.4f}  {:.1f}s/epoch  ETA {:.0f}s", e.epoch,
                              args.training.epochs, e.train_loss, e.val_pca, e.seconds, e.eta_seconds));
  };
  auto report = Train(*model, train, args.training);
  progress.Finish();
  if (!report.ok()) return Fail((*run)->Explain(report.status()));
  if (!(*run)->writes()) return 0;
  if (Status workers = (*run)->Finish(); !workers.ok()) return Fail(workers);
  std::vector<std::string> learned = args.training.mode == TransferMode::kScratch
                                         ? std::vector<std::string>{}
                                         : model->learned_intrinsics();
  for (const auto& in : train.Intrinsics())
    if (std::find(learned.begin(), learned.end(), in) == learned.end()) learned.push_back(in);
  model->set_learned_intrinsics(learned);
  Status saved = model->Save(args.output);
  if (!saved.ok()) return Fail(saved);

  nlohmann::json out = {{"model", args.output}, {"mode", TransferModeName(args.training.mode)},
                        {"train_programs", train.size()}, {"train_tasks", TaskKeys(train).size()},
                        {"epochs_run", report->epochs_run}, {"best_epoch", report->best_epoch},
                        {"best_val_pca", report->best_val_pca}, {"final_train_loss", report->final_train_loss},
                        {"seconds", report->seconds},
                        {"trained_parameters", report->trained_parameters},
                        {"parameters", model->num_parameters()}};
  MetricsTable table;
  if (halves->test.size() > 0) {
    auto scores = model->Predict(halves->test);
    if (!scores.ok()) return Fail(scores.status());
    table = ComputeMetricsTable(halves->test, *scores);
    out["test"] = MetricsTableJson(table);
    out["held_out_tasks"] = TaskKeys(halves->test);  // which tasks the split held out (tools/ms_baselines.py reuses them)
  }
  if (args.json) {
    fmt::print("{}\n", out.dump(2));
    return 0;
  }
  fmt::print("trained {} ({}) on {} programs / {} tasks: {} epochs (best {}, val PCA {:.4f}) in {:.1f}s -> {}\n",
             model->config().architecture, TransferModeName(args.training.mode), train.size(),
             TaskKeys(train).size(), report->epochs_run, report->best_epoch, report->best_val_pca, report->seconds,
             args.output);
  if (halves->test.size() > 0) PrintMetricsTable(table, fmt::format("held-out ({} split):", args.data.split));
  return 0;
}

}  // namespace

Command AddTrainCommand(CLI::App& app, const GlobalOptions& global) {
  auto* sub = app.add_subcommand("train", "Train the UCMoH cost model (LambdaRank) on records");
  auto args = std::make_shared<TrainArgs>();
  AddDataOptions(*sub, args->data);
  sub->add_option("--from", args->from, "Start from this model file (transfer learning)");
  sub->add_option("--mode", args->mode, "scratch | finetune | extract (default: finetune with --from)");
  sub->add_option("-o,--output", args->output, "Model file to write")->required();
  sub->add_option("--epochs", args->training.epochs, "Maximum epochs")->capture_default_str();
  sub->add_option("--lr", args->training.learning_rate, "Adam learning rate")->capture_default_str();
  sub->add_option("--weight-decay", args->training.weight_decay, "Adam weight decay (L2)")->capture_default_str();
  sub->add_option("--val-fraction", args->training.val_fraction,
                  "Training tasks held out for early stopping (0: none, the last epoch is kept)")
      ->capture_default_str();
  sub->add_option("--min-val-tasks", args->training.min_validation_tasks,
                  "An intrinsic with fewer validation tasks than this trains on all of its tasks, unvalidated")
      ->capture_default_str();
  sub->add_option("--patience", args->training.patience, "Early-stopping patience")->capture_default_str();
  sub->add_option("--pairwise-weight", args->training.pairwise_weight,
                  "Weight of the RankNet pair term added to LambdaRank (0: pure LambdaRank)")
      ->capture_default_str();
  sub->add_option("--epoch-average", args->training.epoch_average_decay,
                  "Keep parameters averaged over epochs with this decay (0: off)")
      ->capture_default_str();
  sub->add_flag("--balance-intrinsics,!--no-balance-intrinsics", args->training.balance_intrinsics,
                "Every intrinsic gives as many groups an epoch (default on)");
  sub->add_flag("--validate-per-intrinsic,!--pooled-validation", args->training.validate_per_intrinsic,
                "Early stopping on the mean of the intrinsics' validation PCA (default on)");
  sub->add_option("--seed", args->training.seed, "Training seed")->capture_default_str();
  sub->add_option("--fraction", args->fraction, "Use this fraction of the training tasks")->capture_default_str();
  sub->add_option("--arch", args->network.architecture, "ucmoh | mlp (baseline)")->capture_default_str();
  sub->add_option("--hidden", args->network.hidden, "Hidden width")->capture_default_str();
  sub->add_option("--heads", args->network.heads, "Attention heads; must divide --hidden")->capture_default_str();
  sub->add_option("--fc-blocks", args->network.fc_blocks, "Residual FC blocks")->capture_default_str();
  sub->add_option("--programs-per-group", args->training.programs_per_group,
                  "Programs of one task ranked together by the loss")
      ->capture_default_str();
  sub->add_option("--groups-per-batch", args->training.groups_per_batch,
                  "Task groups per optimizer step (split over the workers)")
      ->capture_default_str();
  args->workers.Add(*sub);
  sub->add_flag("--json", args->json, "Machine-readable output, no progress bar");
  return {sub, [&global, args]() { return RunTrain(global, *args); }};
}

}  // namespace ucmoh::cli
