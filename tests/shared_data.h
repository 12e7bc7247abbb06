// Where the tests find the public measurement data: $UCMOH_DATA_DIR, else
// ../shared/data beside the source tree. It is read in place, never copied
// into the repository. A test that needs it skips, saying why, only when the
// folder itself is absent; where the folder is there, a missing file in it is
// a failure, not a skip.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace ucmoh::testing {

inline std::string SharedDataDir() {
  const char* env = std::getenv("UCMOH_DATA_DIR");
  return env && *env ? std::string(env) : std::string(UCMOH_SOURCE_DIR) + "/../shared/data";
}

inline std::string CutlassDataDir() { return SharedDataDir() + "/cutlass"; }

inline bool HasSharedData() { return std::filesystem::is_directory(SharedDataDir()); }

}  // namespace ucmoh::testing

// GTEST_SKIP returns from the function it is written in, so this is a macro
// for the test body (or a fixture's SetUp).
#define UCMOH_SKIP_WITHOUT_SHARED_DATA()                                                            \
  if (!::ucmoh::testing::HasSharedData())                                                           \
  GTEST_SKIP() << "the shared data folder " << ::ucmoh::testing::SharedDataDir()                    \
               << " is absent (set UCMOH_DATA_DIR to the folder that holds cutlass/)"
