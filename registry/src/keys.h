// Key encodings of every column family (docs/registry.md, "Keys").
#pragma once

#include <cstdint>
#include <string>

#include "ucmoh/record.h"
#include "ucmoh/status.h"

namespace ucmoh::registry::keys {

// Metadata keys.
inline constexpr const char* kSchemaVersion = "schema_version";  // ASCII decimal
inline constexpr const char* kCreatedAt = "created_at";          // ASCII decimal unix seconds
inline constexpr const char* kCreatedBy = "created_by";          // tool version
inline constexpr const char* kRecordCountPrefix = "record_count/";  // + intrinsic -> ASCII decimal

// 8-byte big-endian: byte order equals numeric order, so iterating the
// versions, snapshots and events families visits them in ascending order.
std::string BigEndian64(uint64_t value);
Expected<uint64_t> ParseBigEndian64(const std::string& bytes);

std::string VersionKey(int64_t number);
std::string SnapshotPrefix(int64_t version);
std::string SnapshotKey(int64_t version, const std::string& name);
std::string EventKey(uint64_t sequence);

// Records: intrinsic, a NUL, the program key. NUL never occurs in intrinsic
// names, so a prefix scan over "intrinsic\0" reads exactly one intrinsic.
std::string RecordPrefix(const std::string& intrinsic);
std::string RecordKey(const Record& record);
std::string IntrinsicOfRecordKey(const std::string& key);

std::string RecordCountKey(const std::string& intrinsic);

bool IsSha256Hex(const std::string& s);

}  // namespace ucmoh::registry::keys
