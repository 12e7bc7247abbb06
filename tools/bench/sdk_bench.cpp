// Scoring through libucmoh's C API against the in-process C++ path, on the
// same programs, model and machine (Google Benchmark):
//   build/bin/sdk_bench [--benchmark_filter=...]
// Programs: the public CUTLASS tensor-core records ($UCMOH_DATA_DIR, default
// ../shared/data), repeated to 4,096 as in model_bench. The model: one
// add-intrinsic version (3 epochs) in a fresh registry, pulled. Also times
// opening the pulled model. docs/benchmarks.md has the results.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "ucmoh/ast_program.h"
#include "ucmoh/program_featurizer.h"
#include "ucmoh/records_io.h"
#include "ucmoh/registry/registry_ops.h"
#include "ucmoh/ucmoh.h"

namespace ucmoh {
namespace {

struct Fixture {
  PluginSet plugins;
  std::vector<Record> records;  // 4,096
  std::string ast_text, records_text;
  std::unique_ptr<CostModel> model;  // the pulled version, loaded in process
  ucmoh_model* handle = nullptr;
  std::string pulled;
};

std::string DataDir() {
  const char* env = std::getenv("UCMOH_DATA_DIR");
  return env ? env : std::string(UCMOH_SOURCE_DIR) + "/../shared/data";
}

// $UCMOH_BENCH_OUT keeps the registry, pulled model and programs.ast.jsonl
// there (tools/bench-sdk times the Python package on them).
std::filesystem::path WorkDir() {
  if (const char* out = std::getenv("UCMOH_BENCH_OUT")) return out;
  return std::filesystem::temp_directory_path() / ("ucmoh_sdk_bench_" + std::to_string(::getpid()));
}

Status MakePulledModel(Fixture& f, const std::vector<Record>& rows) {
  const auto dir = WorkDir();
  std::filesystem::create_directories(dir);
  auto store = registry::RegistryStore::Open((dir / "registry").string(), registry::OpenMode::kCreate);
  if (!store.ok()) return store.status();
  const std::string file = (dir / "rows.jsonl").string();
  UCMOH_RETURN_IF_ERROR(WriteRecordsFile(file, rows));
  auto added = registry::AddRecordsFiles(**store, f.plugins, {file});
  if (!added.ok()) return added.status();
  registry::AddIntrinsicOptions o;
  o.step.training.epochs = 3;
  auto version = registry::AddIntrinsic(**store, f.plugins, rows.front().intrinsic, o);
  if (!version.ok()) return version.status();
  f.pulled = (dir / "pulled").string();
  auto pulled = registry::PullVersion(**store, "latest", f.pulled);
  if (!pulled.ok()) return pulled.status();
  auto model = registry::LoadVersionModel(**store, pulled->version);
  if (!model.ok()) return model.status();
  f.model = std::make_unique<CostModel>(std::move(*model));
  return Status::Ok();
}

Fixture* LoadFixture() {
  static Fixture* fixture = []() -> Fixture* {
    auto plugins = LoadPlugins(std::string(UCMOH_SOURCE_DIR) + "/plugins.json");
    if (!plugins.ok()) { std::fprintf(stderr, "%s\n", plugins.status().message().c_str()); return nullptr; }
    auto* f = new Fixture{std::move(*plugins), {}, {}, {}, nullptr, nullptr, {}};
    auto rows = f->plugins.ForTarget("tensorcore")->plugin->Import("cutlass", DataDir() + "/cutlass/resnet50_cutlass_profiler_result.csv");
    if (!rows.ok()) { std::fprintf(stderr, "skip: %s\n", rows.status().message().c_str()); return nullptr; }
    while (f->records.size() < 4096) f->records.push_back((*rows)[f->records.size() % rows->size()]);
    for (const auto& r : f->records) {
      f->records_text += RecordToJsonLine(r) + "\n";
      f->ast_text += AstProgramToJson(*RecordAsAstProgram(f->plugins, r)).dump() + "\n";
    }
    if (Status s = MakePulledModel(*f, *rows); !s.ok()) { std::fprintf(stderr, "%s\n", s.message().c_str()); return nullptr; }
    std::ofstream(WorkDir() / "programs.ast.jsonl") << f->ast_text;
    const std::string manifest = std::string(UCMOH_SOURCE_DIR) + "/plugins.json";
    if (ucmoh_open_pulled(f->pulled.c_str(), manifest.c_str(), &f->handle) != UCMOH_OK) {
      std::fprintf(stderr, "%s\n", ucmoh_last_error());
      return nullptr;
    }
    return f;
  }();
  return fixture;
}

// The in-process C++ path: records -> lower -> featurize -> Predict.
void BM_CppScoreRecords(benchmark::State& state) {
  Fixture* f = LoadFixture();
  if (!f) { state.SkipWithError("no data (set UCMOH_DATA_DIR)"); return; }
  for (auto _ : state) benchmark::DoNotOptimize(f->model->Predict(*BuildProgramSet(f->plugins, f->records)));
  state.SetItemsProcessed(state.iterations() * 4096);
}
BENCHMARK(BM_CppScoreRecords)->Unit(benchmark::kMillisecond)->UseRealTime();

// The C API on AST JSON text (what a compiler sends): parse, validate,
// template values, featurize, score.
void BM_CApiScoreAst(benchmark::State& state) {
  Fixture* f = LoadFixture();
  if (!f) { state.SkipWithError("no data"); return; }
  std::vector<float> scores(4096);
  size_t count = 0;
  for (auto _ : state)
    if (ucmoh_score(f->handle, UCMOH_FORMAT_AST, f->ast_text.data(), f->ast_text.size(), scores.data(), scores.size(),
                    &count) != UCMOH_OK)
      state.SkipWithError(ucmoh_last_error());
  state.SetItemsProcessed(state.iterations() * 4096);
  state.counters["bytes_per_program"] = static_cast<double>(f->ast_text.size()) / 4096;
}
BENCHMARK(BM_CApiScoreAst)->Unit(benchmark::kMillisecond)->UseRealTime();

// The C API on record JSON Lines.
void BM_CApiScoreRecords(benchmark::State& state) {
  Fixture* f = LoadFixture();
  if (!f) { state.SkipWithError("no data"); return; }
  std::vector<float> scores(4096);
  size_t count = 0;
  for (auto _ : state)
    if (ucmoh_score(f->handle, UCMOH_FORMAT_RECORDS, f->records_text.data(), f->records_text.size(), scores.data(),
                    scores.size(), &count) != UCMOH_OK)
      state.SkipWithError(ucmoh_last_error());
  state.SetItemsProcessed(state.iterations() * 4096);
}
BENCHMARK(BM_CApiScoreRecords)->Unit(benchmark::kMillisecond)->UseRealTime();

// Parsing and validating the AST text alone (the part the C++ path has not).
void BM_AstParseOnly(benchmark::State& state) {
  Fixture* f = LoadFixture();
  if (!f) { state.SkipWithError("no data"); return; }
  for (auto _ : state) benchmark::DoNotOptimize(ParseAstPrograms(f->ast_text, f->plugins));
  state.SetItemsProcessed(state.iterations() * 4096);
}
BENCHMARK(BM_AstParseOnly)->Unit(benchmark::kMillisecond)->UseRealTime();

// Opening the pulled model (plugins loaded, weights checked and loaded).
void BM_CApiOpenPulled(benchmark::State& state) {
  Fixture* f = LoadFixture();
  if (!f) { state.SkipWithError("no data"); return; }
  const std::string manifest = std::string(UCMOH_SOURCE_DIR) + "/plugins.json";
  for (auto _ : state) {
    ucmoh_model* m = nullptr;
    if (ucmoh_open_pulled(f->pulled.c_str(), manifest.c_str(), &m) != UCMOH_OK) state.SkipWithError(ucmoh_last_error());
    ucmoh_close(m);
  }
}
BENCHMARK(BM_CApiOpenPulled)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace ucmoh

BENCHMARK_MAIN();
