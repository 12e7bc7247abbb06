// pulled_model_fixture WORK_DIR [PROGRAMS_PER_INTRINSIC]: what the Python
// check of pulled models (tests/pulled_model_python_test.py) starts from. For
// every ExportCase it writes a registry WORK_DIR/<case>/registry.db holding
// one briefly trained version of that configuration, and the sample of every
// intrinsic with data as records files WORK_DIR/records/<target>.jsonl;
// WORK_DIR/fixture.json lists both. The Python side then runs `registry pull`
// and `registry predict --export-tokens` on them, as a user would.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

#include "export_cases.h"
#include "sample_records.h"
#include "trained_version.h"
#include "ucmoh/records_io.h"

namespace fs = std::filesystem;

namespace ucmoh::testing {
namespace {

// One records file per target (records/<target>.jsonl: its intrinsics one
// after the other), so one `registry predict` scores a whole target; the
// listing names each intrinsic's rows [begin, end) in its file.
Expected<nlohmann::json> WriteRecords(const SampleRecords& sample, const fs::path& dir) {
  fs::create_directories(dir);
  std::map<std::string, std::vector<Record>> by_target;
  nlohmann::json files = nlohmann::json::object();
  for (const auto& [intrinsic, records] : sample.by_intrinsic) {
    if (records.empty()) continue;
    auto& rows = by_target[records.front().target];
    const std::string path = (dir / (records.front().target + ".jsonl")).string();
    files[path].push_back({{"intrinsic", intrinsic}, {"begin", rows.size()}, {"end", rows.size() + records.size()}});
    rows.insert(rows.end(), records.begin(), records.end());
  }
  for (const auto& [target, rows] : by_target)
    UCMOH_RETURN_IF_ERROR(WriteRecordsFile((dir / (target + ".jsonl")).string(), rows));
  return files;
}

Expected<nlohmann::json> WriteVersions(const std::map<std::string, ProgramSet>& sets, const fs::path& work) {
  nlohmann::json cases = nlohmann::json::array();
  for (const ExportCase& c : ExportCases()) {
    const std::string db = (work / c.name / "registry.db").string();
    fs::remove_all(db);
    fs::create_directories(work / c.name);
    auto version = WriteTrainedVersion(db, c, sets);
    if (!version.ok()) return version.status().WithContext(c.name);
    const NetworkConfig& n = c.network;
    cases.push_back({{"name", c.name},
                     {"db", db},
                     {"network", {{"architecture", n.architecture}, {"hidden", n.hidden}, {"heads", n.heads},
                                  {"encoder_layers", n.encoder_layers}, {"fc_blocks", n.fc_blocks}}}});
    std::cerr << "pulled_model_fixture: " << c.name << " -> " << db << "\n";
  }
  return cases;
}

Status Run(const fs::path& work, size_t per_intrinsic) {
  auto plugins = LoadPlugins(std::string(UCMOH_SOURCE_DIR) + "/plugins.json");
  if (!plugins.ok()) return plugins.status();
  auto sample = LoadSampleRecords(*plugins, per_intrinsic);
  if (!sample.ok()) return sample.status();
  auto sets = FeaturizeSample(*plugins, *sample);
  if (!sets.ok()) return sets.status();
  auto records = WriteRecords(*sample, work / "records");
  if (!records.ok()) return records.status();
  auto cases = WriteVersions(*sets, work);
  if (!cases.ok()) return cases.status();
  const nlohmann::json listing = {{"cases", *cases},
                                  {"records", *records},
                                  {"cutlass_present", sample->cutlass_present},
                                  {"cutlass_dir", sample->cutlass_dir}};
  std::ofstream(work / "fixture.json") << listing.dump(2) << "\n";
  return Status::Ok();
}

}  // namespace
}  // namespace ucmoh::testing

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    std::cerr << "usage: pulled_model_fixture WORK_DIR [PROGRAMS_PER_INTRINSIC]\n";
    return 2;
  }
  const size_t per_intrinsic = argc == 3 ? std::stoul(argv[2]) : 300;
  const ucmoh::Status s = ucmoh::testing::Run(argv[1], per_intrinsic);
  if (!s.ok()) {
    std::cerr << "error: " << s.message() << "\n";
    return 1;
  }
  return 0;
}
