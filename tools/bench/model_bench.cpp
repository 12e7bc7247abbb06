// Speed of the cost model on real programs (Google Benchmark):
//   build/bin/model_bench [--benchmark_filter=...]
// Programs: the public CUTLASS tensor-core records ($UCMOH_DATA_DIR, default
// ../shared/data), repeated to the batch size. docs/benchmarks.md has results.
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "cost_model_impl.h"
#include "ucmoh/cost_model.h"
#include "ucmoh/plugin_loader.h"
#include "ucmoh/program_featurizer.h"
#include "ucmoh/training.h"
#include "ucmoh/xgboost_baseline.h"

namespace ucmoh {
namespace {

struct Fixture {
  PluginSet plugins;
  std::vector<Record> records;  // 4,096 programs (the CUTLASS rows, repeated)
  ProgramSet set;
  std::unique_ptr<CostModel> model;
  std::unique_ptr<XgbModel> xgb;
};

std::string DataDir() {
  const char* env = std::getenv("UCMOH_DATA_DIR");
  return env ? env : std::string(UCMOH_SOURCE_DIR) + "/../shared/data";
}

// The network benchmarked: the default, or the shape named by
// UCMOH_BENCH_HIDDEN / UCMOH_BENCH_HEADS / UCMOH_BENCH_FC_BLOCKS (to compare
// narrower networks' speed on the same machine and run).
NetworkConfig BenchNetwork() {
  NetworkConfig config;
  auto read = [](const char* name, int& field) {
    if (const char* v = std::getenv(name)) field = std::atoi(v);
  };
  read("UCMOH_BENCH_HIDDEN", config.hidden);
  read("UCMOH_BENCH_HEADS", config.heads);
  read("UCMOH_BENCH_FC_BLOCKS", config.fc_blocks);
  return config;
}

// Why a benchmark has no fixture is printed on stderr as LoadFixture fails.
constexpr char kNoFixture[] = "no fixture: see stderr (data from UCMOH_DATA_DIR, shape from UCMOH_BENCH_*)";

Fixture* LoadFixture() {
  static Fixture* fixture = [] () -> Fixture* {
    auto plugins = LoadPlugins(std::string(UCMOH_SOURCE_DIR) + "/plugins.json");
    if (!plugins.ok()) { std::fprintf(stderr, "%s\n", plugins.status().message().c_str()); return nullptr; }
    auto* f = new Fixture{std::move(*plugins), {}, {}, nullptr, nullptr};
    const LoadedPlugin* tc = f->plugins.ForTarget("tensorcore");
    std::vector<Record> rows;
    for (const char* name : {"resnet50_cutlass_profiler_result.csv", "resnet50_cutlass_profiler_result_fp16_fp32_accum.csv"}) {
      auto imported = tc->plugin->Import("cutlass", DataDir() + "/cutlass/" + name);
      if (!imported.ok()) { std::fprintf(stderr, "skip: %s\n", imported.status().message().c_str()); return nullptr; }
      rows.insert(rows.end(), imported->begin(), imported->end());
    }
    while (f->records.size() < 4096) f->records.push_back(rows[f->records.size() % rows.size()]);
    f->set = *BuildProgramSet(f->plugins, f->records);
    auto model = CostModel::Create(BenchNetwork());
    if (!model.ok()) { std::fprintf(stderr, "UCMOH_BENCH_*: %s\n", model.status().message().c_str()); return nullptr; }
    f->model = std::make_unique<CostModel>(std::move(*model));
    TrainOptions o;
    o.epochs = 1;
    Train(*f->model, f->set, o);
    XgbOptions x;
    x.rounds = 300;
    x.early_stopping_rounds = 0;
    auto xgb = TrainXgb(f->set, x);
    if (!xgb.ok()) { std::fprintf(stderr, "%s\n", xgb.status().message().c_str()); return nullptr; }
    f->xgb = std::make_unique<XgbModel>(std::move(xgb.value()));
    return f;
  }();
  return fixture;
}

// Argument 0: float32 scoring (the default), 1: bf16 (PredictOptions).
PredictOptions PrecisionArg(const benchmark::State& state) {
  PredictOptions o;
  if (state.range(0) == 1) o.precision = ScoringPrecision::kBfloat16;
  return o;
}

// Records -> lower -> featurize -> network scores, for a batch of 4,096.
void BM_UcmohPredictWithFeatures(benchmark::State& state) {
  Fixture* f = LoadFixture();
  if (!f) { state.SkipWithError(kNoFixture); return; }
  const PredictOptions options = PrecisionArg(state);
  for (auto _ : state) {
    auto set = BuildProgramSet(f->plugins, f->records);
    benchmark::DoNotOptimize(f->model->Predict(*set, options));
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(f->records.size()));
}
BENCHMARK(BM_UcmohPredictWithFeatures)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_FeaturizeOnly(benchmark::State& state) {
  Fixture* f = LoadFixture();
  if (!f) { state.SkipWithError(kNoFixture); return; }
  for (auto _ : state) benchmark::DoNotOptimize(BuildProgramSet(f->plugins, f->records));
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(f->records.size()));
}
BENCHMARK(BM_FeaturizeOnly)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_UcmohPredictTokens(benchmark::State& state) {
  Fixture* f = LoadFixture();
  if (!f) { state.SkipWithError(kNoFixture); return; }
  const PredictOptions options = PrecisionArg(state);
  for (auto _ : state) benchmark::DoNotOptimize(f->model->Predict(f->set, options));
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(f->set.size()));
}
BENCHMARK(BM_UcmohPredictTokens)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime();

// The same network through its LibTorch module, as Predict scored before the
// scoring plan (issue 16): batches of 4,096 padded programs, no gradients.
void BM_UcmohModuleForwardTokens(benchmark::State& state) {
  Fixture* f = LoadFixture();
  if (!f) { state.SkipWithError(kNoFixture); return; }
  std::vector<int32_t> all(f->set.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int32_t>(i);
  auto& impl = f->model->impl();
  impl.net->eval();
  for (auto _ : state) {
    torch::NoGradGuard no_grad;
    benchmark::DoNotOptimize(impl.Forward(MakeTokenBatch(f->set, all)));
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(f->set.size()));
}
BENCHMARK(BM_UcmohModuleForwardTokens)->Unit(benchmark::kMillisecond)->UseRealTime();

// XGBoost (300 trees, rank:pairwise) on the same tokens, flattened.
void BM_XgbPredictTokens(benchmark::State& state) {
  Fixture* f = LoadFixture();
  if (!f) { state.SkipWithError(kNoFixture); return; }
  for (auto _ : state) benchmark::DoNotOptimize(f->xgb->Predict(f->set));
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(f->set.size()));
}
BENCHMARK(BM_XgbPredictTokens)->Unit(benchmark::kMillisecond)->UseRealTime();

// Records -> lower -> featurize -> XGBoost, the baseline's whole scoring path.
void BM_XgbPredictWithFeatures(benchmark::State& state) {
  Fixture* f = LoadFixture();
  if (!f) { state.SkipWithError(kNoFixture); return; }
  for (auto _ : state) {
    auto set = BuildProgramSet(f->plugins, f->records);
    benchmark::DoNotOptimize(f->xgb->Predict(*set));
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(f->records.size()));
}
BENCHMARK(BM_XgbPredictWithFeatures)->Unit(benchmark::kMillisecond)->UseRealTime();

// One training epoch over 4,096 programs (report: seconds per 10k = time x 10000/4096).
void BM_UcmohTrainEpoch(benchmark::State& state) {
  Fixture* f = LoadFixture();
  if (!f) { state.SkipWithError(kNoFixture); return; }
  for (auto _ : state) {
    TrainOptions o;
    o.epochs = 1;
    o.val_fraction = 0;
    o.mode = TransferMode::kFinetune;
    CostModel copy = f->model->Clone();
    benchmark::DoNotOptimize(Train(copy, f->set, o));
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(f->set.size()));
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  state.counters["peak_rss_MiB"] = static_cast<double>(usage.ru_maxrss) / 1024.0;
}
BENCHMARK(BM_UcmohTrainEpoch)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace ucmoh

BENCHMARK_MAIN();
