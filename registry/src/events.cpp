// The append-only event log: keys are a strictly increasing sequence number
// (8-byte big-endian), values one JSON object per event. Events are written
// in the same batch as the change they describe; a failed batch leaves a gap
// in the numbering, never a reordering.
#include <nlohmann/json.hpp>

#include "keys.h"
#include "store_impl.h"

namespace ucmoh::registry {

Status LoadEventSequence(RegistryStore::Impl* impl) {
  std::unique_ptr<rocksdb::Iterator> it(
      impl->db->NewIterator(rocksdb::ReadOptions(), impl->cf(kEvents)));
  it->SeekToLast();
  if (it->Valid()) {
    auto last = keys::ParseBigEndian64(it->key().ToString());
    if (!last.ok()) return last.status().WithContext("event log of " + impl->path);
    impl->next_event_sequence = *last + 1;
  }
  return Status::Ok();
}

void AddEventToBatch(RegistryStore::Impl* impl, rocksdb::WriteBatch* batch, const std::string& kind,
                     const std::string& detail) {
  nlohmann::json j = {{"at", NowSeconds()},
                      {"kind", kind},
                      {"detail", detail},
                      {"tool", ToolVersion(impl->options)}};
  batch->Put(impl->cf(kEvents), keys::EventKey(impl->next_event_sequence++), j.dump());
}

Status RegistryStore::AppendEvent(const std::string& kind, const std::string& detail) {
  UCMOH_RETURN_IF_ERROR(impl_->RequireWritable("append event"));
  std::lock_guard<std::mutex> lock(impl_->write_mu);
  rocksdb::WriteBatch batch;
  AddEventToBatch(impl_.get(), &batch, kind, detail);
  return impl_->Write(&batch, "append event");
}

namespace {

Expected<Event> ParseEvent(const std::string& key, const std::string& value) {
  auto seq = keys::ParseBigEndian64(key);
  if (!seq.ok()) return seq.status();
  Event e;
  e.sequence = *seq;
  try {
    auto j = nlohmann::json::parse(value);
    e.at = j.value("at", int64_t{0});
    e.kind = j.value("kind", std::string());
    e.detail = j.value("detail", std::string());
  } catch (const std::exception& ex) {
    return Status::Corruption("event " + std::to_string(*seq) + ": " + ex.what());
  }
  return e;
}

}  // namespace

Expected<std::vector<Event>> RegistryStore::ListEvents(uint64_t from_sequence, size_t limit) const {
  std::vector<Event> out;
  std::unique_ptr<rocksdb::Iterator> it(
      impl_->db->NewIterator(rocksdb::ReadOptions(), impl_->cf(kEvents)));
  for (it->Seek(keys::EventKey(from_sequence)); it->Valid() && out.size() < limit; it->Next()) {
    auto e = ParseEvent(it->key().ToString(), it->value().ToString());
    if (!e.ok()) return e.status();
    out.push_back(std::move(*e));
  }
  if (!it->status().ok()) return Status::IOError("scan events: " + it->status().ToString());
  return out;
}

}  // namespace ucmoh::registry
