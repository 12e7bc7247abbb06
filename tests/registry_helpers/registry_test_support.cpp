#include "registry_test_support.h"

#include <unistd.h>

#include <filesystem>

namespace ucmoh::registry::testing {

namespace fs = std::filesystem;

TempDir::TempDir(const std::string& tag) {
  std::string pattern = (fs::temp_directory_path() / ("ucmoh_" + tag + "_XXXXXX")).string();
  path_ = ::mkdtemp(pattern.data()) ? pattern : std::string();
}

TempDir::~TempDir() {
  std::error_code ec;
  if (!path_.empty()) fs::remove_all(path_, ec);
}

Record SampleRecord(const std::string& intrinsic, int variant) {
  Record r;
  r.target = intrinsic.substr(0, intrinsic.find('.'));
  r.intrinsic = intrinsic;
  r.task = {"bert.dense.m128_n768_k768." + intrinsic, "gemm",
            {{"m", int64_t{128}}, {"n", int64_t{768}}, {"k", int64_t{768}}}};
  r.schedule = {{"mr", int64_t{variant}}, {"pack", std::string("ab")}};
  r.latency = {1e-3 * (variant + 1), 1.1e-3, 0.9e-3, 0.01, 5};
  r.provenance = {"measured", "host", {{"cpu_model", std::string("Xeon")}}};
  r.hardware.model = "Xeon";
  r.hardware.cores = 2;
  return r;
}

std::string RandomBytes(std::mt19937_64* rng, size_t size) {
  std::string out(size, '\0');
  for (size_t i = 0; i < size; i += 8) {
    uint64_t v = (*rng)();
    for (size_t j = 0; j < 8 && i + j < size; ++j) out[i + j] = static_cast<char>(v >> (8 * j));
  }
  return out;
}

VersionCommit SampleCommit(std::mt19937_64* rng, int snapshots, size_t weight_bytes,
                           const std::string& intrinsic) {
  VersionCommit c;
  c.version.intrinsics = {intrinsic};
  c.version.hyper_parameters = {{"lr", 1e-3}, {"epochs", int64_t{10}}, {"mode", std::string("finetune")}};
  c.version.training_data_digest = std::string(64, 'a');
  c.version.evaluation.rows = {{intrinsic, 0.9, 0.8, 0.95}};
  c.version.evaluation.acc = 0.9;
  c.weights = RandomBytes(rng, weight_bytes);
  for (int i = 0; i < snapshots; ++i)
    c.snapshots.push_back({"snap" + std::to_string(i), {intrinsic}, "ewc",
                           RandomBytes(rng, weight_bytes / 2 + 1)});
  c.learned.push_back({intrinsic, "x86", "ucmoh_x86", std::string(64, 'b'), 0, 0});
  return c;
}

RawDb::RawDb(const std::string& path) {
  rocksdb::Status s = rocksdb::DB::ListColumnFamilies(rocksdb::DBOptions(), path, &names_);
  if (!s.ok()) {
    error_ = s.ToString();
    return;
  }
  std::vector<rocksdb::ColumnFamilyDescriptor> descriptors;
  for (const auto& n : names_) descriptors.emplace_back(n, rocksdb::ColumnFamilyOptions());
  rocksdb::DB* raw = nullptr;
  s = rocksdb::DB::Open(rocksdb::DBOptions(), path, descriptors, &handles_, &raw);
  if (!s.ok()) {
    error_ = s.ToString();
    return;
  }
  db_.reset(raw);
}

RawDb::~RawDb() {
  if (!db_) return;
  for (auto* h : handles_) db_->DestroyColumnFamilyHandle(h);
  db_->Close();
}

rocksdb::ColumnFamilyHandle* RawDb::cf(const std::string& name) const {
  for (size_t i = 0; i < names_.size(); ++i)
    if (names_[i] == name) return handles_[i];
  return nullptr;
}

rocksdb::Status RawDb::Put(const std::string& cf_name, const std::string& key,
                           const std::string& value) {
  rocksdb::WriteOptions wo;
  wo.sync = true;
  return db_->Put(wo, cf(cf_name), key, value);
}

rocksdb::Status RawDb::Delete(const std::string& cf_name, const std::string& key) {
  rocksdb::WriteOptions wo;
  wo.sync = true;
  return db_->Delete(wo, cf(cf_name), key);
}

std::string RawDb::Get(const std::string& cf_name, const std::string& key) {
  std::string v;
  db_->Get(rocksdb::ReadOptions(), cf(cf_name), key, &v);
  return v;
}

}  // namespace ucmoh::registry::testing
