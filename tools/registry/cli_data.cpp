#include "cli_data.h"

#include <fmt/format.h>

#include <algorithm>

#include "ucmoh/records_io.h"

namespace ucmoh::cli {

void AddDataOptions(CLI::App& sub, DataArgs& args) {
  sub.add_option("--data", args.files, "Records files (JSON Lines)")->required()->check(CLI::ExistingFile);
  sub.add_option("--intrinsic", args.intrinsics, "Only these intrinsics (default: all in the data)");
  sub.add_option("--split", args.split, "within_task | by_task | by_target | none")->capture_default_str();
  sub.add_option("--test-fraction", args.test_fraction, "Fraction held out for test")->capture_default_str();
  sub.add_option("--held-out-target", args.held_out_target, "Target held out by --split by_target");
  sub.add_option("--split-seed", args.seed, "Seed of the split")->capture_default_str();
}

Expected<ProgramSet> LoadProgramSet(const GlobalOptions& global, const DataArgs& args) {
  auto plugins = Plugins(global);
  if (!plugins.ok()) return plugins.status();
  std::vector<Record> records;
  std::vector<std::pair<std::string, int64_t>> origin;  // file, line of each record
  for (const auto& file : args.files) {
    auto numbered = ReadRecordsFile(file);
    if (!numbered.ok()) return numbered.status();
    for (auto& [line, record] : *numbered) {
      if (!args.intrinsics.empty() &&
          std::find(args.intrinsics.begin(), args.intrinsics.end(), record.intrinsic) == args.intrinsics.end())
        continue;
      records.push_back(std::move(record));
      origin.emplace_back(file, line);
    }
  }
  if (records.empty()) return Status::InvalidArgument("no records of the requested intrinsics in --data");
  std::vector<FeaturizeFailure> failures;
  auto set = BuildProgramSet(**plugins, records, &failures);
  for (const auto& f : failures)
    fmt::print(stderr, "skipped {}:{}: {}\n", origin[f.index].first, origin[f.index].second, f.message);
  return set;
}

Expected<TrainTest> SplitProgramSet(const ProgramSet& set, const DataArgs& args) {
  if (args.split == "none") return TrainTest{set, ProgramSet{}};
  auto kind = ParseSplitKind(args.split);
  if (!kind.ok()) return kind.status();
  SplitOptions options;
  options.kind = *kind;
  options.test_fraction = args.test_fraction;
  options.seed = args.seed;
  options.held_out_target = args.held_out_target;
  auto split = MakeSplit(set, options);
  if (!split.ok()) return split.status();
  return TrainTest{set.Subset(split->train), set.Subset(split->test)};
}

ProgramSet KeepTrainingTasks(const ProgramSet& train, double fraction, uint64_t seed) {
  if (fraction >= 1.0) return train;
  SplitOptions o;
  o.kind = SplitKind::kByTask;
  o.test_fraction = 1.0 - fraction;
  o.seed = seed + 17;
  auto split = MakeSplit(train, o);
  return split.ok() ? train.Subset(split->train) : train;
}

}  // namespace ucmoh::cli
