// ucmoh-measure: the standalone measurer of the CPU targets, one static
// binary per architecture (x86-64 built natively, aarch64 cross-built), which
// `registry measure INTRINSIC --host USER@HOST` copies to a host over ssh and
// drives through stdin / stdout. It loads no plugin module and links no
// LibTorch or RocksDB: the target's planning, kernels and the shared
// cpu_gemm runtime only, so a record it writes is the one the plugin would.
//
//   ucmoh-measure probe INTRINSIC
//   ucmoh-measure plan INTRINSIC [--tasks SUITE] [--per-task N] [--max-tasks N] [--seed S]
//   ucmoh-measure serve INTRINSIC [--min-seconds S] [--min-repeats N] [--max-cv CV]
//   ucmoh-measure check INTRINSIC [--schedules N] [--seed S]
#include <CLI/CLI.hpp>

#include "commands.h"

namespace {

struct Args {
  std::string intrinsic;
  ucmoh::measure::PlanArgs plan;
  ucmoh::MeasureOptions options;
  int64_t schedules = 500;
  uint64_t check_seed = 1;
};

CLI::App* WithIntrinsic(CLI::App& app, const char* name, const char* what, Args& args) {
  CLI::App* sub = app.add_subcommand(name, what);
  sub->add_option("intrinsic", args.intrinsic, "Intrinsic, e.g. arm.sdot or x86.avx2")->required();
  return sub;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"ucmoh-measure: runs, times and checks CPU GEMM programs on this host (docs/arm.md)"};
  app.require_subcommand(1);
  Args args;
  CLI::App* probe = WithIntrinsic(app, "probe", "This host's target, hardware and whether it may time", args);
  CLI::App* plan = WithIntrinsic(app, "plan", "The programs to measure here, one JSON line each", args);
  plan->add_option("--tasks", args.plan.suite, "Task suite")->capture_default_str();
  plan->add_option("--per-task", args.plan.per_task, "Sampled programs per task")->capture_default_str();
  plan->add_option("--max-tasks", args.plan.max_tasks, "Only the suite's first N tasks (0: all)");
  plan->add_option("--seed", args.plan.seed, "Schedule sampling seed")->capture_default_str();
  CLI::App* serve = WithIntrinsic(app, "serve", "Measure program lines from stdin, records to stdout", args);
  serve->add_option("--min-seconds", args.options.min_repeat_seconds, "Minimum timed seconds per program");
  serve->add_option("--min-repeats", args.options.min_repeats, "Minimum timed repeats");
  serve->add_option("--max-cv", args.options.max_cv, "Re-measure a program whose cv exceeds this");
  CLI::App* check = WithIntrinsic(app, "check", "Kernels against the scalar reference (never times)", args);
  check->add_option("--schedules", args.schedules, "Sampled schedules to check")->capture_default_str();
  check->add_option("--seed", args.check_seed, "Sampling seed")->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  const ucmoh::measure::HostTarget target = ucmoh::measure::ReadHostTarget();
  if (probe->parsed()) return ucmoh::measure::Probe(target, args.intrinsic);
  if (plan->parsed()) return ucmoh::measure::Plan(target, args.intrinsic, args.plan);
  if (serve->parsed()) return ucmoh::measure::Serve(target, args.intrinsic, args.options);
  return ucmoh::measure::Check(target, args.intrinsic, args.schedules, args.check_seed);
}
