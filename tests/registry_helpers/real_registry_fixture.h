// A fixture for tests that run real add-intrinsic steps: a fresh RocksDB
// registry in a temporary directory and the project's plugins (plugins.json),
// loaded from disk.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "registry_test_support.h"
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

  TempDir dir_;
  std::unique_ptr<PluginSet> plugins_;
  std::unique_ptr<RegistryStore> store_;
};

}  // namespace ucmoh::registry::testing
