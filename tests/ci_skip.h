// A test that CI is meant to run never skips there (a test that skips in CI
// is a test that does not exist). With CI set (and not "false" / "0"), a
// missing prerequisite fails the test and names what is missing; outside CI
// the test skips with the same reason. Only for prerequisites that tools/setup
// installs or that CI provides (../shared/data, the cross compiler, sshd),
// never for the ISA of the CPU.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace ucmoh::testing {

inline bool InCi() {
  const char* ci = std::getenv("CI");
  return ci && *ci && std::string(ci) != "false" && std::string(ci) != "0";
}

}  // namespace ucmoh::testing

// Returns from the test body (or SetUp) it is written in, as GTEST_SKIP does.
#define UCMOH_SKIP_OR_FAIL_IN_CI(why)                                                  \
  do {                                                                                 \
    const std::string ucmoh_why_ = (why);                                              \
    if (::ucmoh::testing::InCi()) GTEST_FAIL() << "CI runs this test: " << ucmoh_why_; \
    GTEST_SKIP() << ucmoh_why_;                                                        \
  } while (0)
