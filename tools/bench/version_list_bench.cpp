// The server's /api/versions?limit=50 page on registries of 10, 50 and 1,000
// versions (issue 40): the route reads VersionsJson(store, from, limit), one
// RocksDB seek and `limit` reads, so its time should not grow with the
// registry. Each registry is real (RocksDB on disk) with versions committed
// through the store, 4 KiB of weights each; docs/benchmarks.md.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>

#include "ucmoh/registry/registry_json.h"
#include "ucmoh/registry/registry_store.h"

namespace {

using namespace ucmoh::registry;

VersionCommit Commit(int64_t i) {
  VersionCommit c;
  c.version.intrinsics = {"x86.avx2"};
  c.version.hyper_parameters = {{"lr", 1e-3}, {"epochs", int64_t{10}}};
  c.version.training_data_digest = std::string(64, 'a');
  c.version.evaluation.rows = {{"x86.avx2", 0.9, 0.8, 0.95}};
  c.version.evaluation.acc = 0.9;
  c.weights = std::string(4096, static_cast<char>('a' + i % 26)) + std::to_string(i);
  return c;
}

// One registry per size, built once and kept for the run.
RegistryStore& StoreWith(int64_t versions) {
  // Never destroyed: RocksDB's own statics may go first at exit.
  static auto* stores = new std::map<int64_t, std::unique_ptr<RegistryStore>>();
  auto& store = (*stores)[versions];
  if (store) return *store;
  const std::string path = std::filesystem::temp_directory_path().string() + "/ucmoh-version-list-" +
                           std::to_string(versions) + "-" + std::to_string(::getpid());
  std::filesystem::remove_all(path);
  {
    auto writer = RegistryStore::Open(path, OpenMode::kCreate);
    if (!writer.ok()) throw std::runtime_error(writer.status().message());
    for (int64_t i = 0; i < versions; ++i)
      if (auto v = (*writer)->CommitVersion(Commit(i)); !v.ok()) throw std::runtime_error(v.status().message());
  }
  auto reader = RegistryStore::Open(path, OpenMode::kReadOnly);  // as the server opens it
  if (!reader.ok()) throw std::runtime_error(reader.status().message());
  store = std::move(*reader);
  return *store;
}

// The first page, and the last page (from = N - 49), as the route builds them.
void BM_VersionsPage(benchmark::State& state) {
  const int64_t versions = state.range(0);
  const bool last = state.range(1) == 1;
  RegistryStore& store = StoreWith(versions);
  const int64_t from = last ? std::max<int64_t>(1, versions - 49) : 0;
  size_t bytes = 0;
  for (auto _ : state) {
    auto page = VersionsJson(store, from, 50);
    if (!page.ok()) state.SkipWithError(page.status().message().c_str());
    bytes = page->dump().size();
    benchmark::DoNotOptimize(bytes);
  }
  state.counters["page_bytes"] = static_cast<double>(bytes);
}
BENCHMARK(BM_VersionsPage)->ArgsProduct({{10, 50, 1000}, {0, 1}})->ArgNames({"versions", "last_page"})
    ->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
