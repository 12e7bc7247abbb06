// The frame around the project's binary formats (snapshots, model files):
//
//   header   8 bytes  magic, names the format ("UCMOHSNP", "UCMOHMDL")
//            u32      format version
//            u32      flags (0; reserved)
//            u64      payload size in bytes
//   payload  the format's own bytes
//   trailer  32 bytes SHA-256 of header + payload
//
// All integers little-endian. A reader checks the frame before it decodes a
// byte of the payload, so truncation, trailing bytes and bit flips are refused
// by name, and a newer version is told apart from damage.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "ucmoh/status.h"

namespace ucmoh {

inline constexpr size_t kFrameHeaderSize = 8 + 4 + 4 + 8;
inline constexpr size_t kFrameDigestSize = 32;

struct FrameFormat {
  std::string_view magic;  // exactly 8 bytes
  uint32_t newest_version;  // the newest this build reads (and writes)
  std::string_view what;    // "snapshot", "model file": for messages
};

std::string FrameBlob(const FrameFormat& format, const std::string& payload);

// The payload of a framed blob: bytes[begin, end).
struct FramedPayload {
  uint32_t version = 0;
  size_t begin = 0, end = 0;
};

// Corruption for a wrong magic, a truncated or over-long blob, or a checksum
// mismatch; Unsupported for a version newer than format.newest_version or
// flags it does not know.
Expected<FramedPayload> UnframeBlob(const FrameFormat& format, const std::string& bytes);

// True when bytes begin with the format's magic (whatever follows).
bool HasMagic(const FrameFormat& format, const std::string& bytes);

}  // namespace ucmoh
