// Little-endian writing and bounds-checked reading of the project's binary
// payloads (snapshots, model files). Internal to core. Every read checks the
// bytes left before it allocates, so a corrupt length is refused, never
// allocated.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace ucmoh {

class ByteWriter {
 public:
  void U32(uint32_t v) { Int(v, 4); }
  void U64(uint64_t v) { Int(v, 8); }
  void I64(int64_t v) { Int(static_cast<uint64_t>(v), 8); }
  void F32(float f) {
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    Int(bits, 4);
  }
  void F32s(const float* values, size_t count) {
    for (size_t i = 0; i < count; ++i) F32(values[i]);
  }
  // u32 byte length, then the bytes.
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

// Reads bytes[begin, end); every call returns false, reading nothing, when
// too few bytes are left.
class ByteReader {
 public:
  ByteReader(const std::string& bytes, size_t begin, size_t end) : data_(bytes), pos_(begin), end_(end) {}
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
    if (count > remaining() / 4) return false;
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
    if (!U32(&n)) return false;
    if (n > remaining()) {
      pos_ -= 4;
      return false;
    }
    s->assign(data_, pos_, n);
    pos_ += n;
    return true;
  }
  size_t remaining() const { return end_ - pos_; }

 private:
  bool Int(uint64_t* v, int bytes) {
    if (remaining() < static_cast<size_t>(bytes)) return false;
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

// The number of elements of a tensor shape; false for a negative dimension
// or a product past int64 (a corrupt shape must not overflow).
inline bool ShapeElementCount(const std::vector<int64_t>& shape, int64_t* count) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0 || (d > 0 && n > INT64_MAX / d)) return false;
    n *= d;
  }
  *count = n;
  return true;
}

}  // namespace ucmoh
