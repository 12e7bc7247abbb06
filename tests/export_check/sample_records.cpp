#include "sample_records.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "ucmoh/records_io.h"

namespace ucmoh::testing {

namespace fs = std::filesystem;

namespace {

// Every committed data/x86/<intrinsic>.jsonl.gz file, sorted.
std::vector<std::string> X86Files() {
  std::vector<std::string> files;
  const fs::path dir = fs::path(UCMOH_SOURCE_DIR) / "data" / "x86";
  const std::string suffix = ".jsonl.gz";
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
      files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

void AddByIntrinsic(std::vector<Record> records, std::map<std::string, std::vector<Record>>* out) {
  for (auto& r : records) (*out)[r.intrinsic].push_back(std::move(r));
}

Status ReadX86(std::map<std::string, std::vector<Record>>* out) {
  for (const auto& file : X86Files()) {
    auto numbered = ReadRecordsFile(file);
    if (!numbered.ok()) return numbered.status();
    std::vector<Record> records;
    records.reserve(numbered->size());
    for (auto& n : *numbered) records.push_back(std::move(n.record));
    AddByIntrinsic(std::move(records), out);
  }
  return Status::Ok();
}

// Every CSV of the CUTLASS folder through the plugin that imports "cutlass".
Status ImportCutlass(const PluginSet& plugins, const std::string& dir,
                     std::map<std::string, std::vector<Record>>* out) {
  const TargetPlugin* importer = nullptr;
  for (const auto& p : plugins.plugins())
    for (const auto& name : p.plugin->Importers())
      if (name == "cutlass" && !importer) importer = p.plugin.get();
  if (!importer) return Status::NotFound("no loaded plugin imports 'cutlass'");
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.path().extension() == ".csv") files.push_back(entry.path().string());
  std::sort(files.begin(), files.end());
  for (const auto& file : files) {
    auto records = importer->Import("cutlass", file);
    if (!records.ok()) return records.status();
    AddByIntrinsic(std::move(*records), out);
  }
  return Status::Ok();
}

}  // namespace

std::string CutlassDataDir() {
  const char* env = std::getenv("UCMOH_DATA_DIR");
  const std::string data = env && *env ? env : std::string(UCMOH_SOURCE_DIR) + "/../shared/data";
  return data + "/cutlass";
}

std::vector<Record> EvenlySpaced(const std::vector<Record>& records, size_t count) {
  if (records.size() <= count) return records;
  std::vector<Record> out;
  out.reserve(count);
  for (size_t i = 0; i < count; ++i) out.push_back(records[i * records.size() / count]);
  return out;
}

Expected<SampleRecords> LoadSampleRecords(const PluginSet& plugins, size_t per_intrinsic) {
  SampleRecords sample;
  std::map<std::string, std::vector<Record>> all;
  UCMOH_RETURN_IF_ERROR(ReadX86(&all));
  sample.cutlass_dir = CutlassDataDir();
  sample.cutlass_present = fs::is_directory(sample.cutlass_dir);
  if (sample.cutlass_present) UCMOH_RETURN_IF_ERROR(ImportCutlass(plugins, sample.cutlass_dir, &all));
  for (const auto& [intrinsic, records] : all) sample.by_intrinsic[intrinsic] = EvenlySpaced(records, per_intrinsic);
  return sample;
}

Expected<std::map<std::string, ProgramSet>> FeaturizeSample(const PluginSet& plugins,
                                                            const SampleRecords& sample) {
  std::map<std::string, ProgramSet> out;
  for (const auto& [intrinsic, records] : sample.by_intrinsic) {
    std::vector<FeaturizeFailure> failures;
    auto set = BuildProgramSet(plugins, records, &failures);
    if (!set.ok()) return set.status().WithContext(intrinsic);
    if (!failures.empty())
      return Status::InvalidArgument(intrinsic + ": record " + std::to_string(failures.front().index) +
                                     " does not lower: " + failures.front().message);
    out[intrinsic] = std::move(*set);
  }
  return out;
}

}  // namespace ucmoh::testing
