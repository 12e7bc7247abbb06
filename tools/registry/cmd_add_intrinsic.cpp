// registry add-intrinsic NAME [--method M] [--lambda L] [--epochs N] [--relearn]:
// one lifelong step, committed as a new version (registry_ops.h). Takes the
// lifelong step's flags with the same defaults as `registry lifelong`.
#include <fmt/format.h>

#include "cli_progress.h"
#include "cli_workers.h"
#include "cli_store.h"
#include "commands.h"
#include "lifelong_step_flags.h"
#include "remote_measure.h"
#include "ucmoh/registry/registry_ops.h"

namespace ucmoh::cli {

namespace {

struct AddIntrinsicArgs {
  std::string name;
  registry::AddIntrinsicOptions options;
  LifelongStepFlags flags;
  WorkerFlags workers;
  bool quiet = false;
};

int Run(const GlobalOptions& global, AddIntrinsicArgs& args) {
  auto plugins = Plugins(global);
  if (!plugins.ok()) return Fail(plugins.status());
  auto run = WorkerRun::Start(global, args.workers);
  if (!run.ok()) return Fail(run.status());
  args.options.step.training.workers = (*run)->group();
  // Rank 0 writes; the other ranks read (RocksDB read-only opens take no lock).
  auto store = OpenStore(global, (*run)->writes() ? registry::OpenMode::kReadWrite : registry::OpenMode::kReadOnly);
  if (!store.ok()) return Fail(store.status());
  Status flags = args.flags.Apply(args.options.step);
  if (!flags.ok()) return Fail(flags);
  ProgressLine progress(!args.quiet && (*run)->writes());
  args.options.step.on_progress = [&](const std::string& line) { progress.Show(args.name + ": " + line); };
  auto r = registry::AddIntrinsic(**store, **plugins, args.name, args.options);
  progress.Finish();
  if (!r.ok()) return Fail((*run)->Explain(WithRemoteMeasureHint(r.status(), **plugins, args.name)));
  if (!(*run)->writes()) return 0;
  if (Status workers = (*run)->Finish(); !workers.ok())  // after the last all-reduce: the version stands
    fmt::print(stderr, "warning: committed, but {}\n", workers.message());
  const auto& v = r->version;
  fmt::print("version {} (parent {}): learned {} with {} in {} epochs ({:.1f}s training, {} programs + {} replayed)\n",
             v.number, v.parent, args.name, LifelongMethodName(args.options.step.method), r->step.train.epochs_run,
             r->step.train_seconds, r->step.fit_programs, r->step.replayed_programs);
  fmt::print("{:<24} {:>8} {:>8}\n", "intrinsic", "PCA", "top-1");
  for (const auto& row : v.evaluation.rows) fmt::print("{:<24} {:>8.4f} {:>8.4f}\n", row.intrinsic, row.pca, row.top1);
  fmt::print("ACC {:.4f}  BWT {:+.4f}\n", v.evaluation.acc, v.evaluation.bwt);
  return 0;
}

}  // namespace

Command AddAddIntrinsicCommand(CLI::App& app, const GlobalOptions& global) {
  auto* sub = app.add_subcommand("add-intrinsic", "Learn one more intrinsic from the registry's records (new version)");
  auto args = std::make_shared<AddIntrinsicArgs>();
  sub->add_option("name", args->name, "Intrinsic, e.g. tensorcore.h16816")->required();
  args->flags.Add(*sub, args->options.step,
                  {LifelongMethod::kReplay, LifelongMethod::kEwcReplay, LifelongMethod::kEwc,
                   LifelongMethod::kOnlineEwc, LifelongMethod::kFinetune});
  sub->add_option("--test-fraction", args->options.test_fraction,
                  "Held-out tasks of NAME when it is first learned (later steps keep the pinned ones)")
      ->capture_default_str();
  sub->add_option("--split-seed", args->options.split_seed, "Seed of NAME's held-out tasks when first learned")
      ->capture_default_str();
  args->workers.Add(*sub);
  sub->add_flag("--relearn", args->options.relearn, "Train an intrinsic that is already learned again");
  sub->add_flag("-q,--quiet", args->quiet, "No progress line");
  return {sub, [&global, args]() { return Run(global, *args); }};
}

}  // namespace ucmoh::cli
