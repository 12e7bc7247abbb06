#include "keys.h"

namespace ucmoh::registry::keys {

std::string BigEndian64(uint64_t value) {
  std::string out(8, '\0');
  for (int i = 7; i >= 0; --i) {
    out[i] = static_cast<char>(value & 0xff);
    value >>= 8;
  }
  return out;
}

Expected<uint64_t> ParseBigEndian64(const std::string& bytes) {
  if (bytes.size() < 8) return Status::Corruption("key shorter than 8 bytes");
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | static_cast<unsigned char>(bytes[i]);
  return v;
}

std::string VersionKey(int64_t number) { return BigEndian64(static_cast<uint64_t>(number)); }
std::string SnapshotPrefix(int64_t version) { return BigEndian64(static_cast<uint64_t>(version)); }
std::string SnapshotKey(int64_t version, const std::string& name) {
  return SnapshotPrefix(version) + name;
}
std::string EventKey(uint64_t sequence) { return BigEndian64(sequence); }

std::string RecordPrefix(const std::string& intrinsic) { return intrinsic + std::string(1, '\0'); }
std::string RecordKey(const Record& record) {
  return RecordPrefix(record.intrinsic) + ProgramKey(record);
}
std::string IntrinsicOfRecordKey(const std::string& key) { return key.substr(0, key.find('\0')); }

std::string RecordCountKey(const std::string& intrinsic) { return kRecordCountPrefix + intrinsic; }

bool IsSha256Hex(const std::string& s) {
  if (s.size() != 64) return false;
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

}  // namespace ucmoh::registry::keys
