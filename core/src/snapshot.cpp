// Snapshot serialization: a versioned, little-endian, checksummed layout
// (documented in docs/lifelong.md, "Snapshot format"), framed by
// ucmoh/framed_blob.h (magic "UCMOHSNP", version, flags, size, SHA-256).
//
//   payload  str      method
//            u32 n, n × str                 covered intrinsics, in order
//            u32 n, n × (str key, str value) metadata, sorted by key
//            u32 n, n × tensor:
//                     str name
//                     u32 rank, rank × i64  shape
//                     u64 count             product of the shape
//                     count × f32           anchor θ*  (IEEE-754 bits)
//                     count × f32           importance
//
// str = u32 byte length + UTF-8 bytes. All integers and floats little-endian.
#include "ucmoh/snapshot.h"

#include <fmt/format.h>

#include <cstring>
#include <set>

#include "byte_codec.h"
#include "ucmoh/framed_blob.h"

namespace ucmoh {

namespace {

Status CheckTensors(const Snapshot& s) {
  std::set<std::string> names;
  for (const auto& t : s.tensors) {
    if (!names.insert(t.name).second) return Status::InvalidArgument("snapshot: duplicate tensor '" + t.name + "'");
    int64_t n = 0;
    if (!ShapeElementCount(t.shape, &n))
      return Status::InvalidArgument("snapshot: negative or overflowing shape of '" + t.name + "'");
    if (static_cast<size_t>(n) != t.anchor.size() || t.anchor.size() != t.importance.size())
      return Status::InvalidArgument("snapshot: tensor '" + t.name + "' has shape of " + std::to_string(n) +
                                     " values but " + std::to_string(t.anchor.size()) + " anchor and " +
                                     std::to_string(t.importance.size()) + " importance values");
  }
  return Status::Ok();
}

}  // namespace

int64_t Snapshot::num_values() const {
  int64_t n = 0;
  for (const auto& t : tensors) n += static_cast<int64_t>(t.anchor.size());
  return n;
}

const SnapshotTensor* Snapshot::Find(const std::string& name) const {
  for (const auto& t : tensors)
    if (t.name == name) return &t;
  return nullptr;
}

Status CheckSameLayout(const Snapshot& a, const Snapshot& b) {
  if (a.tensors.size() != b.tensors.size())
    return Status::InvalidArgument("snapshots differ in tensor count: " + std::to_string(a.tensors.size()) +
                                   " vs " + std::to_string(b.tensors.size()));
  for (size_t i = 0; i < a.tensors.size(); ++i) {
    const auto& x = a.tensors[i];
    const auto& y = b.tensors[i];
    if (x.name != y.name || x.shape != y.shape || x.anchor.size() != y.anchor.size())
      return Status::InvalidArgument("snapshots differ at tensor " + std::to_string(i) + " ('" + x.name +
                                     "' vs '" + y.name + "'): not the same network");
  }
  return Status::Ok();
}

Expected<std::string> SerializeSnapshot(const Snapshot& s) {
  UCMOH_RETURN_IF_ERROR(CheckTensors(s));
  ByteWriter p;
  p.Str(s.method);
  p.U32(static_cast<uint32_t>(s.intrinsics.size()));
  for (const auto& in : s.intrinsics) p.Str(in);
  p.U32(static_cast<uint32_t>(s.metadata.size()));
  for (const auto& [k, v] : s.metadata) {
    p.Str(k);
    p.Str(v);
  }
  p.U32(static_cast<uint32_t>(s.tensors.size()));
  for (const auto& t : s.tensors) {
    p.Str(t.name);
    p.U32(static_cast<uint32_t>(t.shape.size()));
    for (int64_t d : t.shape) p.I64(d);
    p.U64(t.anchor.size());
    for (float f : t.anchor) p.F32(f);
    for (float f : t.importance) p.F32(f);
  }
  return FrameBlob(kSnapshotFrame, p.out);
}

Expected<Snapshot> DeserializeSnapshot(const std::string& bytes) {
  auto frame = UnframeBlob(kSnapshotFrame, bytes);
  if (!frame.ok()) return frame.status();
  const Status bad = Status::Corruption("snapshot payload is malformed");
  ByteReader r(bytes, frame->begin, frame->end);
  Snapshot s;
  uint32_t n = 0;
  if (!r.Str(&s.method) || !r.U32(&n)) return bad;
  for (uint32_t i = 0; i < n; ++i) {
    std::string in;
    if (!r.Str(&in)) return bad;
    s.intrinsics.push_back(std::move(in));
  }
  if (!r.U32(&n)) return bad;
  for (uint32_t i = 0; i < n; ++i) {
    std::string k, v;
    if (!r.Str(&k) || !r.Str(&v)) return bad;
    s.metadata[k] = v;
  }
  if (!r.U32(&n)) return bad;
  for (uint32_t i = 0; i < n; ++i) {
    SnapshotTensor t;
    uint32_t rank = 0;
    if (!r.Str(&t.name) || !r.U32(&rank) || rank > r.remaining() / 8) return bad;
    t.shape.resize(rank);
    for (auto& d : t.shape)
      if (!r.I64(&d)) return bad;
    uint64_t count = 0;
    if (!r.U64(&count) || !r.F32s(&t.anchor, count) || !r.F32s(&t.importance, count)) return bad;
    s.tensors.push_back(std::move(t));
  }
  if (r.remaining() != 0) return bad;
  Status consistent = CheckTensors(s);
  if (!consistent.ok()) return Status::Corruption(consistent.message());
  return s;
}

void NormalizeImportance(Snapshot& snapshot) {
  double sum = 0;
  int64_t count = 0;
  for (const auto& t : snapshot.tensors) {
    for (float v : t.importance) sum += v;
    count += static_cast<int64_t>(t.importance.size());
  }
  if (count == 0 || !(sum > 0)) return;
  const double mean = sum / static_cast<double>(count);
  for (auto& t : snapshot.tensors)
    for (float& v : t.importance) v = static_cast<float>(v / mean);
  snapshot.metadata["importance_mean"] = fmt::format("{:.9g}", mean);
  snapshot.metadata["normalization"] = "importance divided by its mean over all parameters";
}

}  // namespace ucmoh
