// Importer "autotvm": AutoTVM tuning logs (JSON Lines) of the x86 templates
// -> records of the x86 target. docs/records.md ("AutoTVM logs") is the
// reference: which templates, how knobs become schedules, what provenance
// each record carries.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ucmoh/record.h"
#include "ucmoh/status.h"

namespace ucmoh::x86 {

constexpr const char* kAutoTvmFormat = "autotvm";

struct AutoTvmImport {
  std::vector<Record> records;              // entries with error_no 0
  std::map<std::string, int64_t> failures;  // entries with error_no != 0, by TVM's error name
};

// Every line is checked (JSON, template, knobs, target) before anything is
// returned: a bad line fails the whole import with "FILE:LINE: what". A
// failed measurement (error_no != 0) is counted, never a record.
Expected<AutoTvmImport> ImportAutoTvmLog(const std::string& path);

}  // namespace ucmoh::x86
