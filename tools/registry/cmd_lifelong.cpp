// registry lifelong --sequence A,B,C --data FILE... [--method M]: learns the
// intrinsics one after another with the lifelong step add-intrinsic uses (the
// same options, the same defaults: lifelong_step_flags.h) and prints the
// continual-learning matrices R[step][intrinsic] (PCA, top-1 on held-out
// tasks), ACC, BWT, FWT and the plasticity gap (docs/lifelong.md).
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli_data.h"
#include "cli_progress.h"
#include "cli_workers.h"
#include "commands.h"
#include "lifelong_step_flags.h"
#include "ucmoh/lifelong.h"

namespace ucmoh::cli {

namespace {

struct LifelongArgs {
  std::vector<std::string> files;
  std::vector<std::string> sequence;
  std::string snapshots_dir, output;
  bool no_plasticity = false;
  bool json = false;
  LifelongOptions options;
  LifelongStepFlags flags;
  WorkerFlags workers;
};

std::string Short(const std::string& intrinsic) {
  const auto dot = intrinsic.find('.');
  return dot == std::string::npos ? intrinsic : intrinsic.substr(dot + 1);
}

void PrintMatrix(const std::string& title, const LifelongResult& r, const std::vector<std::vector<double>>& m) {
  fmt::print("{} (row: after learning, column: evaluated on; [..] = not learned yet)\n{:<16}", title, "after \\ on");
  for (const auto& in : r.intrinsics) fmt::print(" {:>10}", Short(in));
  fmt::print("\n");
  for (size_t i = 0; i < m.size(); ++i) {
    fmt::print("{:<16}", Short(r.intrinsics[i]));
    for (size_t j = 0; j < m[i].size(); ++j)
      fmt::print(" {:>10}", j <= i ? fmt::format("{:.4f}", m[i][j]) : fmt::format("[{:.4f}]", m[i][j]));
    fmt::print("\n");
  }
}

nlohmann::json ResultJson(const LifelongArgs& args, const LifelongResult& r) {
  nlohmann::json steps = nlohmann::json::array();
  for (const auto& s : r.steps) {
    nlohmann::json trials = nlohmann::json::array();
    for (const auto& t : s.lambda_trials)
      trials.push_back({{"lambda", t.lambda},
                        {"validation_pca", t.validation_pca},
                        {"new_validation_pca", t.new_validation_pca},
                        {"eligible", t.eligible},
                        {"scored_on", t.held_back_programs ? "held-back programs" : "validation tasks"}});
    nlohmann::json step = {{"intrinsic", s.intrinsic},
                           {"seconds", s.seconds},
                           {"train_seconds", s.train_seconds},
                           {"fisher_seconds", s.fisher_seconds},
                           {"evaluate_seconds", s.evaluate_seconds},
                           {"fit_programs", s.fit_programs},
                           {"replayed_programs", s.replayed_programs},
                           {"epochs_run", s.train.epochs_run},
                           {"best_epoch", s.train.best_epoch},
                           {"final_train_loss", s.train.final_train_loss},
                           {"train_loss_by_intrinsic", s.train_loss},
                           {"penalty", s.penalty},
                           {"snapshot_bytes", s.snapshot.size()}};
    if (MethodUsesEwc(r.method)) {
      if (steps.size() > 0) step["lambda"] = s.lambda;  // the first step has no penalty
      step["snapshot_sha256"] = s.snapshot_sha256;
      if (!trials.empty()) step["lambda_trials"] = trials;
    }
    steps.push_back(step);
  }
  nlohmann::json out = {{"method", LifelongMethodName(r.method)},
                        {"sequence", r.intrinsics},
                        {"pca", {{"R", r.pca}, {"acc", r.acc_pca}, {"bwt", r.bwt_pca}}},
                        {"top1", {{"R", r.top1}, {"acc", r.acc_top1}, {"bwt", r.bwt_top1}}},
                        {"fresh_pca", r.fresh_pca},
                        {"fwt_pca", r.fwt_pca},
                        {"options", StepOptionsToJson(args.options.step)},
                        {"steps", steps},
                        {"seconds", r.seconds}};
  if (!r.alone_pca.empty()) {
    out["pca"]["alone"] = r.alone_pca;
    out["pca"]["plasticity_gap"] = r.plasticity_gap_pca;
    out["pca"]["mean_plasticity_gap"] = r.mean_plasticity_gap_pca;
    out["top1"]["alone"] = r.alone_top1;
    out["top1"]["plasticity_gap"] = r.plasticity_gap_top1;
    out["top1"]["mean_plasticity_gap"] = r.mean_plasticity_gap_top1;
  }
  return out;
}

Status WriteSnapshots(const std::string& dir, const LifelongResult& r) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Status::IOError(dir + ": " + ec.message());
  for (size_t i = 0; i < r.steps.size(); ++i) {
    if (r.steps[i].snapshot.empty()) continue;
    const std::string path = fmt::format("{}/step{}-{}.snapshot", dir, i + 1, r.steps[i].intrinsic);
    std::ofstream f(path, std::ios::binary);
    f.write(r.steps[i].snapshot.data(), static_cast<std::streamsize>(r.steps[i].snapshot.size()));
    if (!f) return Status::IOError(path + ": write failed");
  }
  return Status::Ok();
}

int RunLifelongCommand(const GlobalOptions& global, LifelongArgs& args) {
  Status flags = args.flags.Apply(args.options.step);
  if (!flags.ok()) return Fail(flags);
  args.options.sequence = args.sequence;
  args.options.plasticity_reference = !args.no_plasticity;

  auto run = WorkerRun::Start(global, args.workers);
  if (!run.ok()) return Fail(run.status());
  args.options.step.training.workers = (*run)->group();
  DataArgs data;
  data.files = args.files;
  data.intrinsics = args.sequence;
  auto set = LoadProgramSet(global, data);
  if (!set.ok()) return Fail(set.status());

  ProgressLine progress(!args.json && (*run)->writes());
  args.options.step.on_progress = [&](const std::string& line) { progress.Show(line); };
  args.options.step.training.on_epoch = [&](const EpochReport& e) {
    progress.Show(fmt::format("  epoch {}/{}  loss {:.4f}  val PCA {:.4f}", e.epoch, args.options.step.training.epochs,
                              e.train_loss, e.val_pca));
  };
  auto result = RunLifelong(*set, args.options);
  progress.Finish();
  if (!result.ok()) return Fail((*run)->Explain(result.status()));
  if (!(*run)->writes()) return 0;
  if (Status workers = (*run)->Finish(); !workers.ok()) return Fail(workers);
  if (!args.snapshots_dir.empty()) {
    Status s = WriteSnapshots(args.snapshots_dir, *result);
    if (!s.ok()) return Fail(s);
  }
  if (!args.output.empty()) {
    Status s = result->final_model.Save(args.output);
    if (!s.ok()) return Fail(s);
  }
  if (args.json) {
    fmt::print("{}\n", ResultJson(args, *result).dump(2));
    return 0;
  }
  const auto& r = *result;
  const bool ewc = MethodUsesEwc(r.method);
  fmt::print("lifelong {} over {} intrinsics, {:.1f}s\n", LifelongMethodName(r.method), r.intrinsics.size(), r.seconds);
  for (size_t i = 0; i < r.steps.size(); ++i) {
    const auto& s = r.steps[i];
    fmt::print("step {} {:<20} {:6.1f}s (train {:.1f}s)  epochs {:>3}  replayed {:>5}", i + 1, s.intrinsic, s.seconds,
               s.train_seconds, s.train.epochs_run, s.replayed_programs);
    if (ewc)
      fmt::print("  lambda {:>6}  penalty {:.4g}  Fisher {:.1f}s  snapshot {} B {}",
                 i == 0 ? std::string("-") : fmt::format("{:g}", s.lambda), s.penalty, s.fisher_seconds,
                 s.snapshot.size(), s.snapshot_sha256.substr(0, 12));
    fmt::print("\n");
    for (const auto& t : s.lambda_trials)
      fmt::print("    lambda {:<10g} {} PCA: seen intrinsics {:.4f}, new one {:.4f}{}\n", t.lambda,
                 t.held_back_programs ? "held-back programs'" : "validation", t.validation_pca, t.new_validation_pca,
                 t.eligible ? "" : "  (not eligible)");
  }
  PrintMatrix("R, PCA", r, r.pca);
  PrintMatrix("R, top-1", r, r.top1);
  fmt::print("{:<8} {:>8} {:>8} {:>16}\n", "", "ACC", "BWT", "plasticity gap");
  auto gap = [&](double v) { return r.alone_pca.empty() ? std::string("-") : fmt::format("{:.4f}", v); };
  fmt::print("{:<8} {:>8.4f} {:>8.4f} {:>16}\n", "PCA", r.acc_pca, r.bwt_pca, gap(r.mean_plasticity_gap_pca));
  fmt::print("{:<8} {:>8.4f} {:>8.4f} {:>16}\n", "top-1", r.acc_top1, r.bwt_top1, gap(r.mean_plasticity_gap_top1));
  fmt::print("FWT (PCA, zero-shot R[j-1][j] minus a fresh network's) {:+.4f}\n", r.fwt_pca);
  if (!r.alone_pca.empty()) {
    fmt::print("plasticity gap per intrinsic (trained alone − R[j][j], PCA):");
    for (size_t j = 0; j < r.intrinsics.size(); ++j)
      fmt::print(" {} {:+.4f}", Short(r.intrinsics[j]), r.plasticity_gap_pca[j]);
    fmt::print("\n");
  }
  return 0;
}

}  // namespace

Command AddLifelongCommand(CLI::App& app, const GlobalOptions& global) {
  auto* sub = app.add_subcommand("lifelong", "Learn intrinsics in sequence (EWC, fine-tuning, ...) and report R, ACC, BWT");
  auto args = std::make_shared<LifelongArgs>();
  auto& o = args->options;
  sub->add_option("--data", args->files, "Records files (JSON Lines)")->required()->check(CLI::ExistingFile);
  sub->add_option("--sequence", args->sequence, "Intrinsics in learning order, comma-separated")
      ->required()
      ->delimiter(',');
  args->flags.Add(*sub, o.step);
  sub->add_option("--test-fraction", o.test_fraction, "Held-out tasks per intrinsic (by_task)")->capture_default_str();
  sub->add_option("--split-seed", o.split_seed, "Seed of the splits")->capture_default_str();
  sub->add_option("--arch", o.step.network.architecture, "ucmoh | mlp")->capture_default_str();
  args->workers.Add(*sub);
  sub->add_flag("--no-plasticity", args->no_plasticity, "Skip the models trained on each intrinsic alone");
  sub->add_option("--save-snapshots", args->snapshots_dir, "Write each step's serialized snapshot into this folder");
  sub->add_option("-o,--output", args->output, "Write the final model here");
  sub->add_flag("--json", args->json, "Machine-readable output, no progress line");
  return {sub, [&global, args]() { return RunLifelongCommand(global, *args); }};
}

}  // namespace ucmoh::cli
