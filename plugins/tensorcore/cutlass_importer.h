// Importer "cutlass": CUTLASS profiler CSV output of conv2d tensor-op kernels
// (fprop, dgrad and wgrad) -> records (docs/tensorcore.md lists the column
// mapping).
#pragma once

#include <string>
#include <vector>

#include "ucmoh/record.h"
#include "ucmoh/status.h"

namespace ucmoh::tensorcore {

constexpr const char* kCutlassFormat = "cutlass";
constexpr const char* kCutlassSourceRepo = "github.com/qingchanghan/tvm-cutlass-eval@63d5ee62";
constexpr const char* kCutlassDevice = "NVIDIA GeForce RTX 3070";

// One record per row that ran (Status "success" and Disposition "passed",
// "incorrect" or "not_verified"); rows whose kernel did not run are skipped.
// Any malformed row fails the whole import with "file:line: ...". The rows'
// GPU is described by PATH.gpu.json beside the file (a record's "hardware"
// object: `tensorcore-measure --describe-gpu` writes it) or, without one, is
// the public data's RTX 3070 (kCutlassDevice).
Expected<std::vector<Record>> ImportCutlassCsv(const std::string& path);

}  // namespace ucmoh::tensorcore
