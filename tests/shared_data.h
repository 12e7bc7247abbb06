// Where the tests find the public measurement data: $UCMOH_DATA_DIR, else
// ../shared/data beside the source tree. It is read in place, never copied
// into the repository. A test that needs it skips, saying why, only when the
// folder itself is absent, and only outside CI (ci_skip.h); where the folder is there, a missing file in it is
// a failure, not a skip.
#pragma once

#include <gtest/gtest.h>

#include "ci_skip.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace ucmoh::testing {

inline std::string SharedDataDir() {
  const char* env = std::getenv("UCMOH_DATA_DIR");
  return env && *env ? std::string(env) : std::string(UCMOH_SOURCE_DIR) + "/../shared/data";
}

inline std::string CutlassDataDir() { return SharedDataDir() + "/cutlass"; }

inline bool HasSharedData() { return std::filesystem::is_directory(SharedDataDir()); }

// The header and the first `rows` rows of a CUTLASS file (the int8 one by
// default), written to `dst`: a small real dataset for the CLI tests. Returns `dst`.
inline std::string WriteCutlassSubset(int rows, const std::string& dst,
                                      const std::string& file = "resnet50_cutlass_profiler_result_int8.csv") {
  const std::string src = CutlassDataDir() + "/" + file;
  EXPECT_TRUE(std::filesystem::exists(src)) << src << " is missing from the shared data folder";
  std::ifstream in(src);
  std::ofstream out(dst);
  std::string line;
  for (int i = 0; i <= rows && std::getline(in, line); ++i) out << line << "\n";
  return dst;
}

}  // namespace ucmoh::testing

// GTEST_SKIP returns from the function it is written in, so this is a macro
// for the test body (or a fixture's SetUp).
#define UCMOH_SKIP_WITHOUT_SHARED_DATA()                                                     \
  if (!::ucmoh::testing::HasSharedData())                                                    \
  UCMOH_SKIP_OR_FAIL_IN_CI("the shared data folder " + ::ucmoh::testing::SharedDataDir() +   \
                           " is absent (set UCMOH_DATA_DIR to the folder that holds cutlass/)")
