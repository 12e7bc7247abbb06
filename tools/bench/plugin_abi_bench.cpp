// What the C plugin ABI costs (Google Benchmark): records -> lower ->
// featurize, once through the tensorcore plugin loaded from its library (every
// Lower crosses ucmoh/plugin_c.h) and once through the same plugin class
// linked into this process (direct C++ calls), in one run.
//   build/bin/plugin_abi_bench
// Programs: the public CUTLASS tensor-core records ($UCMOH_DATA_DIR, default
// ../shared/data), repeated to 4,096. docs/benchmarks.md has results.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "tensorcore_plugin.h"
#include "ucmoh/plugin_loader.h"
#include "ucmoh/program_featurizer.h"
#include "ucmoh/program_set.h"

namespace ucmoh {
namespace {

struct Fixture {
  PluginSet loaded, in_process;
  std::vector<Record> records;
};

std::string DataDir() {
  const char* env = std::getenv("UCMOH_DATA_DIR");
  return env ? env : std::string(UCMOH_SOURCE_DIR) + "/../shared/data";
}

Fixture* LoadFixture() {
  static Fixture* fixture = []() -> Fixture* {
    auto loaded = LoadPlugins(std::string(UCMOH_SOURCE_DIR) + "/plugins.json");
    auto in_process = PluginSet::InProcess({std::make_shared<tensorcore::TensorCorePlugin>()});
    if (!loaded.ok() || !in_process.ok()) return nullptr;
    auto* f = new Fixture{std::move(*loaded), std::move(*in_process), {}};
    std::vector<Record> rows;
    for (const char* name : {"resnet50_cutlass_profiler_result.csv", "resnet50_cutlass_profiler_result_fp16_fp32_accum.csv"}) {
      auto imported = f->loaded.ForTarget("tensorcore")->plugin->Import("cutlass", DataDir() + "/cutlass/" + name);
      if (!imported.ok()) { std::fprintf(stderr, "skip: %s\n", imported.status().message().c_str()); return nullptr; }
      rows.insert(rows.end(), imported->begin(), imported->end());
    }
    while (f->records.size() < 4096) f->records.push_back(rows[f->records.size() % rows.size()]);
    return f;
  }();
  return fixture;
}

void Featurize(benchmark::State& state, bool through_c_abi) {
  Fixture* f = LoadFixture();
  if (!f) { state.SkipWithError("no data"); return; }
  const PluginSet& plugins = through_c_abi ? f->loaded : f->in_process;
  for (auto _ : state) benchmark::DoNotOptimize(BuildProgramSet(plugins, f->records));
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(f->records.size()));
}

void BM_FeaturizeDirectCpp(benchmark::State& state) { Featurize(state, false); }
void BM_FeaturizeThroughCAbi(benchmark::State& state) { Featurize(state, true); }
// Lowering and featurization alone (no program keys, no ProgramSet): the
// part of the work the ABI touches.
void LowerAndFeaturize(benchmark::State& state, bool through_c_abi) {
  Fixture* f = LoadFixture();
  if (!f) { state.SkipWithError("no data"); return; }
  const PluginSet& plugins = through_c_abi ? f->loaded : f->in_process;
  for (auto _ : state)
    for (const Record& r : f->records) benchmark::DoNotOptimize(FeaturizeRecord(plugins, r));
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(f->records.size()));
}
void BM_LowerAndFeaturizeDirectCpp(benchmark::State& state) { LowerAndFeaturize(state, false); }
void BM_LowerAndFeaturizeThroughCAbi(benchmark::State& state) { LowerAndFeaturize(state, true); }
// By default 15 repetitions each, run in random order (main below): the two
// paths see the same drift of a shared VM, so the ratio of medians is worth
// reading.
BENCHMARK(BM_LowerAndFeaturizeDirectCpp)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_LowerAndFeaturizeThroughCAbi)->Unit(benchmark::kMillisecond)->UseRealTime();

BENCHMARK(BM_FeaturizeDirectCpp)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_FeaturizeThroughCAbi)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace ucmoh

// BENCHMARK_MAIN with 15 repetitions in random order by default (flags given
// on the command line still win: they come later).
int main(int argc, char** argv) {
  static char repetitions[] = "--benchmark_repetitions=15";
  static char interleave[] = "--benchmark_enable_random_interleaving=true";
  std::vector<char*> args(argv, argv + argc);
  args.insert(args.begin() + 1, {repetitions, interleave});
  int count = static_cast<int>(args.size());
  benchmark::Initialize(&count, args.data());
  if (benchmark::ReportUnrecognizedArguments(count, args.data())) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
