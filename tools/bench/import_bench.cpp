// Speed of the importers (Google Benchmark): foreign files -> records, through
// the plugins loaded from plugins.json, as `registry import` runs them (the
// output file's writing excluded).
//   build/bin/import_bench
// Inputs: the shared AutoTVM log and CUTLASS CSVs ($UCMOH_DATA_DIR, default
// ../shared/data). docs/benchmarks.md ("Import speed") has results.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "ucmoh/plugin_loader.h"

namespace ucmoh {
namespace {

std::string DataDir() {
  const char* env = std::getenv("UCMOH_DATA_DIR");
  return env ? env : std::string(UCMOH_SOURCE_DIR) + "/../shared/data";
}

const PluginSet* Plugins() {
  static const PluginSet* plugins = []() -> const PluginSet* {
    auto loaded = LoadPlugins(std::string(UCMOH_SOURCE_DIR) + "/plugins.json");
    if (!loaded.ok()) return std::fprintf(stderr, "%s\n", loaded.status().message().c_str()), nullptr;
    return new PluginSet(std::move(*loaded));
  }();
  return plugins;
}

void BM_Import(benchmark::State& state, const char* target, const char* format, std::vector<std::string> files) {
  const PluginSet* plugins = Plugins();
  const LoadedPlugin* plugin = plugins ? plugins->ForTarget(target) : nullptr;
  if (!plugin) return state.SkipWithError("plugins.json did not load");
  int64_t records = 0;
  for (auto _ : state) {
    for (const std::string& file : files) {
      auto imported = plugin->plugin->Import(format, DataDir() + "/" + file);
      if (!imported.ok()) return state.SkipWithError(imported.status().message().c_str());
      records += static_cast<int64_t>(imported->size());
    }
  }
  state.SetItemsProcessed(records);
}

BENCHMARK_CAPTURE(BM_Import, autotvm, "x86", "autotvm", {"tvm-autotvm/platinum-8124m.bert-B1-float32.kernel.log"})
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Import, cutlass, "tensorcore", "cutlass",
                  {"cutlass/resnet50_cutlass_profiler_result.csv",
                   "cutlass/resnet50_cutlass_profiler_result_fp16_fp32_accum.csv",
                   "cutlass/resnet50_cutlass_profiler_result_int8.csv"})
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace ucmoh

BENCHMARK_MAIN();
