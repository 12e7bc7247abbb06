// Real records for the pulled-model checks: a deterministic subsample of every
// intrinsic that has data, read only through the public record APIs (the
// committed x86 files through ReadRecordsFile, the public CUTLASS CSVs
// through the plugin importer), so the checks follow the record format.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "ucmoh/plugin_loader.h"
#include "ucmoh/program_set.h"
#include "ucmoh/record.h"
#include "ucmoh/status.h"

namespace ucmoh::testing {

struct SampleRecords {
  std::map<std::string, std::vector<Record>> by_intrinsic;  // subsampled, file order kept
  bool cutlass_present = false;  // $UCMOH_DATA_DIR/cutlass (or ../shared/data/cutlass) exists
  std::string cutlass_dir;
};

// The public CUTLASS folder: $UCMOH_DATA_DIR/cutlass, else the source tree's
// ../shared/data/cutlass.
std::string CutlassDataDir();

// `count` records of `records` at evenly spaced positions (all when fewer).
std::vector<Record> EvenlySpaced(const std::vector<Record>& records, size_t count);

// Up to `per_intrinsic` records of each x86 intrinsic in data/x86 and each
// tensor-core intrinsic of the CUTLASS CSVs (when that folder exists).
Expected<SampleRecords> LoadSampleRecords(const PluginSet& plugins, size_t per_intrinsic);

// Every record of the sample featurized into one ProgramSet per intrinsic;
// fails when any record does not lower.
Expected<std::map<std::string, ProgramSet>> FeaturizeSample(const PluginSet& plugins,
                                                            const SampleRecords& sample);

}  // namespace ucmoh::testing
