// A fixture for tests that run real add-intrinsic steps: a fresh RocksDB
// registry in a temporary directory and the project's plugins (plugins.json),
// loaded from disk.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "registry_test_support.h"
#include "../shared_data.h"
#include "ucmoh/registry/registry_ops.h"
#include "ucmoh/plugin_loader.h"
#include "ucmoh/registry/registry_store.h"

namespace ucmoh::registry::testing {

class RealRegistryTest : public ::testing::Test {
 protected:
  explicit RealRegistryTest(const std::string& tag) : dir_(tag) {}

  // Call from SetUp (after any GTEST_SKIP); fails the test on error.
  void OpenRegistryWithPlugins() {
    auto plugins = LoadPlugins(std::string(UCMOH_SOURCE_DIR) + "/plugins.json");
    ASSERT_TRUE(plugins.ok()) << plugins.status().message();
    plugins_ = std::make_unique<PluginSet>(std::move(*plugins));
    auto store = RegistryStore::Open(dir_.Sub("r.db"), OpenMode::kCreate);
    ASSERT_TRUE(store.ok()) << store.status().message();
    store_ = std::move(*store);
  }

  // A SetUp for tests of tensor-core steps: skips (fails in CI) without the
  // shared data, opens the registry and imports the int8 CUTLASS rows
  // (tensorcore.i8816 and tensorcore.i16832).
  void OpenRegistryWithCutlassInt8() {
    UCMOH_SKIP_WITHOUT_SHARED_DATA();
    OpenRegistryWithPlugins();
    if (::testing::Test::HasFatalFailure()) return;
    const std::string csv = ucmoh::testing::CutlassDataDir() + "/resnet50_cutlass_profiler_result_int8.csv";
    auto imported = ImportRecordsFiles(*store_, *plugins_, "cutlass", {csv});
    ASSERT_TRUE(imported.ok()) << imported.status().message();
  }

  TempDir dir_;
  std::unique_ptr<PluginSet> plugins_;
  std::unique_ptr<RegistryStore> store_;
};

}  // namespace ucmoh::registry::testing
