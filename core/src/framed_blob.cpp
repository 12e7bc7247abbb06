// The frame of the binary formats (layout in ucmoh/framed_blob.h).
#include "ucmoh/framed_blob.h"

#include <cstring>

#include "byte_codec.h"
#include "ucmoh/sha256.h"

namespace ucmoh {

namespace {

std::string Digest(const char* data, size_t size) {
  const std::string hex = Sha256Hex(data, size);
  std::string raw(kFrameDigestSize, '\0');
  for (size_t i = 0; i < kFrameDigestSize; ++i)
    raw[i] = static_cast<char>(std::stoi(hex.substr(2 * i, 2), nullptr, 16));
  return raw;
}

}  // namespace

bool HasMagic(const FrameFormat& format, const std::string& bytes) {
  return bytes.size() >= format.magic.size() &&
         std::memcmp(bytes.data(), format.magic.data(), format.magic.size()) == 0;
}

std::string FrameBlob(const FrameFormat& format, const std::string& payload) {
  ByteWriter h;
  h.Raw(format.magic.data(), format.magic.size());
  h.U32(format.newest_version);
  h.U32(0);
  h.U64(payload.size());
  std::string out = std::move(h.out);
  out += payload;
  out += Digest(out.data(), out.size());
  return out;
}

Expected<FramedPayload> UnframeBlob(const FrameFormat& format, const std::string& bytes) {
  const std::string what(format.what);
  if (bytes.size() < kFrameHeaderSize + kFrameDigestSize || !HasMagic(format, bytes))
    return Status::Corruption("not a UCMoH " + what + " (bad magic or too short: " + std::to_string(bytes.size()) +
                              " bytes)");
  ByteReader h(bytes, format.magic.size(), kFrameHeaderSize);
  FramedPayload frame;
  uint32_t flags = 0;
  uint64_t payload = 0;
  h.U32(&frame.version);
  h.U32(&flags);
  h.U64(&payload);
  if (frame.version == 0 || frame.version > format.newest_version)
    return Status::Unsupported(what + " format version " + std::to_string(frame.version) + " (this build reads " +
                               std::to_string(format.newest_version) + "; a newer tool wrote it)");
  if (flags != 0) return Status::Unsupported(what + " flags " + std::to_string(flags) + " are not understood");
  if (payload != bytes.size() - kFrameHeaderSize - kFrameDigestSize)
    return Status::Corruption(what + " is truncated or has trailing bytes (payload " + std::to_string(payload) +
                              ", file " + std::to_string(bytes.size()) + " bytes)");
  frame.begin = kFrameHeaderSize;
  frame.end = kFrameHeaderSize + payload;
  if (Digest(bytes.data(), frame.end) != bytes.substr(frame.end)) return Status::Corruption(what + " checksum mismatch");
  return frame;
}

}  // namespace ucmoh
