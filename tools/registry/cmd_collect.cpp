// registry collect metaschedule [--networks N,...] [--dtype float32|int8]
//   [--per-task N] [--work DIR] -o OUT.jsonl: a compiler's own programs as
// records. ucmoh.tvm.collect (python/ucmoh/tvm/collect.py) samples and
// measures MetaSchedule's design space of the networks' tasks on this host
// (or an RPC tracker's hosts) and converts every measured candidate to an AST;
// this driver turns the ASTs into records (docs/data.md, "MetaSchedule").
// Resumable: the work directory keeps each finished task; a rerun measures
// only the rest and rewrites OUT whole.
#include <fmt/format.h>

#include "ast_records.h"
#include "commands.h"
#include "tvm_python.h"
#include "ucmoh/records_io.h"

namespace ucmoh::cli {

namespace {

struct CollectArgs {
  std::string source;  // "metaschedule"
  std::string networks, dtype = "float32", tasks, shard, target, rpc, work, output, traces;
  int max_tasks = 0, per_task = 64, random = 32, seed = 0;
  bool finished_only = false;
  TvmPythonOptions python;
};

std::vector<std::string> CollectorArguments(const CollectArgs& a, const std::string& programs) {
  std::vector<std::string> args = {"--dtype", a.dtype, "--per-task", std::to_string(a.per_task), "--random",
                                   std::to_string(a.random), "--seed", std::to_string(a.seed), "--work", a.work,
                                   "-o", programs};
  for (const auto& [flag, value] : {std::pair{"--networks", a.networks}, {"--tasks", a.tasks}, {"--shard", a.shard},
                                    {"--target", a.target}, {"--rpc", a.rpc}})
    if (!value.empty()) args.insert(args.end(), {flag, value});
  if (a.max_tasks > 0) args.insert(args.end(), {"--max-tasks", std::to_string(a.max_tasks)});
  if (a.finished_only) args.push_back("--finished-only");
  if (!a.traces.empty()) args.insert(args.end(), {"--traces", a.traces});
  return args;
}

int RunCollect(const GlobalOptions& global, CollectArgs args) {
  if (args.source != "metaschedule")
    return Fail(Status::InvalidArgument("collect: unknown source '" + args.source + "' (known: metaschedule)"));
  auto plugins = Plugins(global);
  if (!plugins.ok()) return Fail(plugins.status());
  if (args.work.empty()) args.work = args.output + ".work";
  const std::string programs = args.work + "/programs.ast.jsonl";
  auto exit = RunTvmModule(args.python, "ucmoh.tvm.collect", CollectorArguments(args, programs));
  if (!exit.ok()) return Fail(exit.status());
  if (*exit == 2) return 2;  // the collector's own one-line error (bad network, dtype, target ...)
  if (*exit != 0)
    return Fail(Status::IOError(fmt::format("collect: ucmoh.tvm.collect failed (exit {}, see above); finished "
                                            "tasks stay in {} and a rerun resumes",
                                            *exit, args.work)));
  auto records = AstRecords(**plugins, programs, "measured", "metaschedule", "metaschedule");
  if (!records.ok()) return Fail(records.status());
  Status written = WriteRecordsFile(args.output, *records);
  if (!written.ok()) return Fail(written);
  fmt::print("collected {} records into {}\n", records->size(), args.output);
  return 0;
}

}  // namespace

Command AddCollectCommand(CLI::App& app, const GlobalOptions& global) {
  auto* sub = app.add_subcommand("collect", "Sample and measure a compiler's own programs (MetaSchedule) as records");
  auto args = std::make_shared<CollectArgs>();
  sub->add_option("source", args->source, "Where the programs come from: metaschedule")->required();
  sub->add_option("--networks", args->networks, "Comma-separated networks (default: all; python/ucmoh/tvm/networks.py)");
  sub->add_option("--dtype", args->dtype, "float32 (x86.avx2 / x86.avx512) or int8 (x86.vnni)");
  sub->add_option("--tasks", args->tasks, "Only these task names (comma-separated)");
  sub->add_option("--max-tasks", args->max_tasks, "The first N tasks only (in turn from each network)");
  sub->add_option("--shard", args->shard,
                  "K/N: positions K, K+N, ... of the task order, seeded as one collector would seed them "
                  "(N collectors side by side on one --work)");
  sub->add_option("--per-task", args->per_task, "Measured candidates per task");
  sub->add_option("--random", args->random, "Of them, sampled under a random model (the rest: a short tuning run)");
  sub->add_option("--target", args->target, "A TVM target (default: this host)");
  sub->add_option("--rpc", args->rpc, "TRACKER_HOST:PORT:KEY: measure on an RPC tracker's servers");
  sub->add_option("--seed", args->seed, "Search seed of the first task (task i: seed + i)");
  sub->add_option("--work", args->work, "Per-task MetaSchedule databases; a rerun resumes (default: OUT.work)");
  sub->add_flag("--finished-only", args->finished_only,
               "Measure nothing: records of the tasks the work directory has finished (e.g. of a running collection)");
  sub->add_option("--traces", args->traces,
                  "Also write each task's MetaSchedule form here (workload, traces, run_secs; .gz compresses)");
  sub->add_option("--python", args->python.python,
                  "The Python with TVM (default: $UCMOH_PYTHON, else the project's .venv from tools/setup-tvm)");
  sub->add_option("-o,--output", args->output, "Records file to write (JSON Lines)")->required();
  return {sub, [&global, args]() { return RunCollect(global, *args); }};
}

}  // namespace ucmoh::cli
