// Snapshot serialization: a versioned, little-endian, checksummed layout
// (documented in docs/lifelong.md, "Snapshot format").
//
//   header   8 bytes  magic "UCMOHSNP"
//            u32      format version (kSnapshotFormatVersion)
//            u32      flags (0; reserved)
//            u64      payload size in bytes
//   payload  str      method
//            u32 n, n × str                 covered intrinsics, in order
//            u32 n, n × (str key, str value) metadata, sorted by key
//            u32 n, n × tensor:
//                     str name
//                     u32 rank, rank × i64  shape
//                     u64 count             product of the shape
//                     count × f32           anchor θ*  (IEEE-754 bits)
//                     count × f32           importance
//   trailer  32 bytes SHA-256 of header + payload
//
// str = u32 byte length + UTF-8 bytes. All integers and floats little-endian.
#include "ucmoh/snapshot.h"

#include <fmt/format.h>

#include <cstring>
#include <set>

#include "ucmoh/sha256.h"

namespace ucmoh {

namespace {

constexpr char kMagic[8] = {'U', 'C', 'M', 'O', 'H', 'S', 'N', 'P'};
constexpr size_t kHeaderSize = 8 + 4 + 4 + 8;
constexpr size_t kDigestSize = 32;

class Writer {
 public:
  void U32(uint32_t v) { Int(v, 4); }
  void U64(uint64_t v) { Int(v, 8); }
  void I64(int64_t v) { Int(static_cast<uint64_t>(v), 8); }
  void F32(float f) {
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    Int(bits, 4);
  }
  void Str(const std::string& s) {
    U32(static_cast<uint32_t>(s.size()));
    out.append(s);
  }
  void Raw(const void* data, size_t n) { out.append(static_cast<const char*>(data), n); }
  std::string out;

 private:
  void Int(uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  }
};

class Reader {
 public:
  Reader(const std::string& bytes, size_t begin, size_t end) : data_(bytes), pos_(begin), end_(end) {}
  bool U32(uint32_t* v) {
    uint64_t x;
    if (!Int(&x, 4)) return false;
    *v = static_cast<uint32_t>(x);
    return true;
  }
  bool U64(uint64_t* v) { return Int(v, 8); }
  bool I64(int64_t* v) {
    uint64_t x;
    if (!Int(&x, 8)) return false;
    *v = static_cast<int64_t>(x);
    return true;
  }
  bool F32s(std::vector<float>* out, uint64_t count) {
    if (count > (end_ - pos_) / 4) return false;
    out->resize(count);
    for (uint64_t i = 0; i < count; ++i) {
      uint64_t bits = 0;
      Int(&bits, 4);
      const auto b32 = static_cast<uint32_t>(bits);
      std::memcpy(&(*out)[i], &b32, 4);
    }
    return true;
  }
  bool Str(std::string* s) {
    uint32_t n;
    if (!U32(&n) || n > end_ - pos_) return false;
    s->assign(data_, pos_, n);
    pos_ += n;
    return true;
  }
  size_t remaining() const { return end_ - pos_; }

 private:
  bool Int(uint64_t* v, int bytes) {
    if (end_ - pos_ < static_cast<size_t>(bytes)) return false;
    uint64_t x = 0;
    for (int i = 0; i < bytes; ++i)
      x |= static_cast<uint64_t>(static_cast<unsigned char>(data_[pos_ + i])) << (8 * i);
    pos_ += bytes;
    *v = x;
    return true;
  }
  const std::string& data_;
  size_t pos_, end_;
};

std::string DigestBytes(const char* data, size_t size) {
  const std::string hex = Sha256Hex(data, size);
  std::string raw(kDigestSize, '\0');
  for (size_t i = 0; i < kDigestSize; ++i) raw[i] = static_cast<char>(std::stoi(hex.substr(2 * i, 2), nullptr, 16));
  return raw;
}

Status CheckTensors(const Snapshot& s) {
  std::set<std::string> names;
  for (const auto& t : s.tensors) {
    if (!names.insert(t.name).second) return Status::InvalidArgument("snapshot: duplicate tensor '" + t.name + "'");
    int64_t n = 1;
    for (int64_t d : t.shape) {
      if (d < 0) return Status::InvalidArgument("snapshot: negative dimension in '" + t.name + "'");
      n *= d;
    }
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
  Writer p;
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
  Writer h;
  h.Raw(kMagic, sizeof kMagic);
  h.U32(kSnapshotFormatVersion);
  h.U32(0);
  h.U64(p.out.size());
  std::string out = std::move(h.out);
  out += p.out;
  out += DigestBytes(out.data(), out.size());
  return out;
}

Expected<Snapshot> DeserializeSnapshot(const std::string& bytes) {
  if (bytes.size() < kHeaderSize + kDigestSize || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0)
    return Status::Corruption("not a UCMoH snapshot (bad magic or too short: " + std::to_string(bytes.size()) +
                              " bytes)");
  Reader h(bytes, sizeof kMagic, kHeaderSize);
  uint32_t version = 0, flags = 0;
  uint64_t payload = 0;
  h.U32(&version);
  h.U32(&flags);
  h.U64(&payload);
  if (version != kSnapshotFormatVersion)
    return Status::Unsupported("snapshot format version " + std::to_string(version) + " (this build reads " +
                               std::to_string(kSnapshotFormatVersion) + ")");
  if (flags != 0) return Status::Unsupported("snapshot flags " + std::to_string(flags) + " are not understood");
  if (payload != bytes.size() - kHeaderSize - kDigestSize)
    return Status::Corruption("snapshot is truncated or has trailing bytes (payload " + std::to_string(payload) +
                              ", file " + std::to_string(bytes.size()) + " bytes)");
  const size_t body = kHeaderSize + payload;
  if (DigestBytes(bytes.data(), body) != bytes.substr(body))
    return Status::Corruption("snapshot checksum mismatch");

  const Status bad = Status::Corruption("snapshot payload is malformed");
  Reader r(bytes, kHeaderSize, body);
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
