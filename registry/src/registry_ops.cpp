// Records ingestion, loading a version's model, the lineage matrix (registry_ops.h); add-intrinsic is in add_intrinsic.cpp.
#include "ucmoh/registry/registry_ops.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <limits>
#include <set>
#include <sstream>

#include "ucmoh/program_set.h"
#include "ucmoh/records_io.h"
#include "ucmoh/sha256.h"

namespace ucmoh::registry {

namespace {

struct Located {
  std::string where;  // FILE:LINE
  Record record;
};

// Every record names a loaded intrinsic and lowers; the first that does not
// fails everything with its FILE:LINE.
Status ValidateRecords(const PluginSet& plugins, const std::vector<Located>& records) {
  for (const auto& r : records) {
    if (!plugins.Intrinsic(r.record.intrinsic)) {
      std::string known;
      for (const auto& i : plugins.AllIntrinsics()) known += (known.empty() ? "" : ", ") + i.name;
      return Status::InvalidArgument(fmt::format("{}: unknown intrinsic '{}' (no loaded plugin supplies it; known: {})",
                                                 r.where, r.record.intrinsic, known));
    }
  }
  if (records.empty()) return Status::Ok();
  std::vector<Record> plain;
  plain.reserve(records.size());
  for (const auto& r : records) plain.push_back(r.record);
  std::vector<FeaturizeFailure> failures;
  auto set = BuildProgramSet(plugins, plain, &failures);
  if (!failures.empty()) {
    const auto& f = failures.front();
    return Status::InvalidArgument(
        fmt::format("{}: record does not lower: {}", records[static_cast<size_t>(f.index)].where, f.message));
  }
  if (!set.ok()) return set.status();
  return Status::Ok();
}

Status RegisterIntrinsics(RegistryStore& store, const PluginSet& plugins, const std::set<std::string>& names) {
  for (const auto& name : names) {
    if (store.GetIntrinsic(name).ok()) continue;
    const LoadedPlugin* p = plugins.ForIntrinsic(name);
    IntrinsicEntry e;
    e.name = name;
    if (p) {
      e.target = p->target.name;
      e.plugin = p->entry.name;
      e.plugin_sha256 = p->library_sha256;
    }
    UCMOH_RETURN_IF_ERROR(store.PutIntrinsic(e));
  }
  return Status::Ok();
}

Expected<RecordsIngestResult> Ingest(RegistryStore& store, const PluginSet& plugins,
                                     const std::vector<Located>& records, const std::string& what) {
  UCMOH_RETURN_IF_ERROR(ValidateRecords(plugins, records));
  RecordsIngestResult result;
  std::vector<Record> plain;
  std::set<std::string> names;
  for (const auto& r : records) {
    plain.push_back(r.record);
    names.insert(r.record.intrinsic);
    result.by_intrinsic[r.record.intrinsic]++;
  }
  result.read = static_cast<int64_t>(plain.size());
  if (plain.empty()) return result;
  auto stored = store.AddRecords(plain);
  if (!stored.ok()) return stored.status();
  result.stored = *stored;
  UCMOH_RETURN_IF_ERROR(RegisterIntrinsics(store, plugins, names));
  (void)what;
  return result;
}

}  // namespace

Expected<RecordsIngestResult> AddRecordsFiles(RegistryStore& store, const PluginSet& plugins,
                                              const std::vector<std::string>& files) {
  std::vector<Located> all;
  for (const auto& file : files) {
    auto records = ReadRecordsFile(file);
    if (!records.ok()) return records.status();
    for (auto& r : *records) all.push_back({fmt::format("{}:{}", file, r.line), std::move(r.record)});
  }
  return Ingest(store, plugins, all, "records add");
}

Expected<RecordsIngestResult> AddRecordsText(RegistryStore& store, const PluginSet& plugins, std::string_view text,
                                             const std::string& source) {
  auto records = ParseNumberedRecordsText(text, source + ":");
  if (!records.ok()) return records.status();
  std::vector<Located> all;
  all.reserve(records->size());
  for (auto& r : *records) all.push_back({fmt::format("{}:{}", source, r.line), std::move(r.record)});
  return Ingest(store, plugins, all, "records upload");
}

Expected<RecordsIngestResult> ImportRecordsFiles(RegistryStore& store, const PluginSet& plugins,
                                                 const std::string& format,
                                                 const std::vector<std::string>& files) {
  const LoadedPlugin* importer = nullptr;
  std::string known;
  for (const auto& p : plugins.plugins())
    for (const auto& name : p.plugin->Importers()) {
      if (name == format && !importer) importer = &p;
      known += (known.empty() ? "" : ", ") + name;
    }
  if (!importer) return Status::NotFound("no loaded plugin imports '" + format + "' (known: " + known + ")");
  std::vector<Located> all;
  for (const auto& file : files) {
    auto records = importer->plugin->Import(format, file);
    if (!records.ok()) return records.status();
    for (size_t i = 0; i < records->size(); ++i) {
      Record& r = (*records)[i];
      std::string where = fmt::format("{}: record {}", file, i + 1);
      auto line = r.provenance.details.find("line");
      if (line != r.provenance.details.end() && std::holds_alternative<int64_t>(line->second))
        where = fmt::format("{}:{}", file, std::get<int64_t>(line->second));
      all.push_back({where, std::move(r)});
    }
  }
  return Ingest(store, plugins, all, "records import");
}

Expected<CostModel> LoadVersionModel(const RegistryStore& store, int64_t number) {
  auto version = store.GetVersion(number);
  if (!version.ok()) return version.status();
  auto bytes = store.GetBlob(version->weights_sha256);  // verified against its sha256
  if (!bytes.ok()) return bytes.status().WithContext(fmt::format("weights of version {}", number));
  if (Sha256Hex(*bytes) != version->weights_sha256)
    return Status::Corruption(fmt::format("weights of version {} do not match their sha256", number));
  // The registry wrote these bytes and they match their sha256, so a version
  // written in model file format 1 (a LibTorch archive) is read as well.
  ModelReadOptions options;
  options.accept_format1 = true;
  auto model = CostModel::FromBytes(*bytes, options);
  if (!model.ok()) return model.status().WithContext(fmt::format("weights of version {}", number));
  return model;
}

Expected<LineageMatrix> EvaluationMatrix(const RegistryStore& store, int64_t number) {
  std::vector<ModelVersion> chain;
  for (int64_t n = number; n > 0;) {
    auto v = store.GetVersion(n);
    if (!v.ok()) return v.status();
    chain.push_back(*v);
    n = v->parent;
    if (chain.size() > 100000) return Status::Corruption("parent chain has a cycle");
  }
  std::reverse(chain.begin(), chain.end());
  LineageMatrix m;
  m.intrinsics = chain.back().intrinsics;
  m.acc = chain.back().evaluation.acc;
  m.bwt = chain.back().evaluation.bwt;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (const auto& v : chain) {
    m.versions.push_back(v.number);
    std::vector<double> pca(m.intrinsics.size(), nan), top1(m.intrinsics.size(), nan);
    for (const auto& row : v.evaluation.rows)
      for (size_t j = 0; j < m.intrinsics.size(); ++j)
        if (m.intrinsics[j] == row.intrinsic) {
          pca[j] = row.pca;
          top1[j] = row.top1;
        }
    m.pca.push_back(pca);
    m.top1.push_back(top1);
  }
  return m;
}

}  // namespace ucmoh::registry
