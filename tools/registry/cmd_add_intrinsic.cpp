// registry add-intrinsic NAME [--method ewc|online-ewc] [--lambda L] [--epochs N] [--relearn]:
// one lifelong step, committed as a new version (registry_ops.h).
#include <fmt/format.h>

#include "cli_progress.h"
#include "cli_store.h"
#include "commands.h"
#include "ucmoh/registry/registry_ops.h"

namespace ucmoh::cli {

namespace {

struct AddIntrinsicArgs {
  std::string name;
  registry::AddIntrinsicOptions options;
  bool quiet = false;
};

int Run(const GlobalOptions& global, AddIntrinsicArgs& args) {
  auto plugins = Plugins(global);
  if (!plugins.ok()) return Fail(plugins.status());
  auto store = OpenStore(global, registry::OpenMode::kReadWrite);
  if (!store.ok()) return Fail(store.status());
  ProgressLine progress(!args.quiet);
  args.options.on_progress = [&](const std::string& line) { progress.Show(args.name + ": " + line); };
  auto r = registry::AddIntrinsic(**store, **plugins, args.name, args.options);
  progress.Finish();
  if (!r.ok()) return Fail(r.status());
  const auto& v = r->version;
  fmt::print("version {} (parent {}): learned {} in {} epochs ({:.1f}s)\n", v.number, v.parent, args.name,
             r->train.epochs_run, r->train.seconds);
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
  sub->add_option("--method", args->options.method, "ewc | online-ewc")
      ->check(CLI::IsMember({"ewc", "online-ewc"}))->capture_default_str();
  sub->add_option("--lambda", args->options.lambda, "EWC strength")->capture_default_str();
  sub->add_option("--gamma", args->options.gamma, "online-ewc decay")->capture_default_str();
  sub->add_option("--epochs", args->options.epochs, "Training epochs")->capture_default_str();
  sub->add_option("--seed", args->options.seed, "Training seed")->capture_default_str();
  sub->add_option("--test-fraction", args->options.test_fraction,
                  "Held-out tasks of NAME when it is first learned (later steps keep the pinned ones)")
      ->capture_default_str();
  sub->add_option("--split-seed", args->options.split_seed, "Seed of NAME's held-out tasks when first learned")
      ->capture_default_str();
  sub->add_flag("--relearn", args->options.relearn, "Train an intrinsic that is already learned again");
  sub->add_flag("-q,--quiet", args->quiet, "No progress line");
  return {sub, [&global, args]() { return Run(global, *args); }};
}

}  // namespace ucmoh::cli
