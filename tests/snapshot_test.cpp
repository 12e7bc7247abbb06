// Snapshot serialization: bit-exact round trips (NaN payloads, signed zeros,
// subnormals included), a layout pinned byte by byte, and every kind of
// damage reported as corruption rather than read as wrong numbers.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "ucmoh/snapshot.h"

namespace ucmoh {
namespace {

uint32_t Bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

float FromBits(uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}

Snapshot AwkwardSnapshot() {
  Snapshot s;
  s.method = "fisher";
  s.intrinsics = {"tensorcore.h16816", "tensorcore.s1688"};
  s.metadata = {{"groups", "19"}, {"loss", "lambdarank"}, {"note", std::string("utf-8 \xce\xbb and \0 nul", 18)}};
  std::mt19937 rng(5);
  std::uniform_int_distribution<uint32_t> any_bits;
  SnapshotTensor w{"encoder.0.weight", {3, 4}, {}, {}};
  for (int i = 0; i < 12; ++i) {
    w.anchor.push_back(FromBits(any_bits(rng)));  // arbitrary bit patterns, NaNs included
    w.importance.push_back(std::ldexp(1.0f, -140 + i));  // subnormals
  }
  w.anchor[0] = -0.0f;
  w.anchor[1] = std::numeric_limits<float>::infinity();
  w.anchor[2] = FromBits(0x7fc01234u);  // a quiet NaN with a payload
  w.anchor[3] = FromBits(0xff800001u);  // a signalling NaN, negative
  SnapshotTensor b{"decoder.bias", {1}, {0.25f}, {3.5e-7f}};
  SnapshotTensor scalar{"scale", {}, {1.0f}, {0.0f}};
  SnapshotTensor empty{"unused", {0, 5}, {}, {}};
  s.tensors = {w, b, scalar, empty};
  return s;
}

void ExpectBitEqual(const Snapshot& a, const Snapshot& b) {
  EXPECT_EQ(a.method, b.method);
  EXPECT_EQ(a.intrinsics, b.intrinsics);
  EXPECT_EQ(a.metadata, b.metadata);
  ASSERT_EQ(a.tensors.size(), b.tensors.size());
  for (size_t i = 0; i < a.tensors.size(); ++i) {
    const auto& x = a.tensors[i];
    const auto& y = b.tensors[i];
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.shape, y.shape);
    ASSERT_EQ(x.anchor.size(), y.anchor.size());
    ASSERT_EQ(x.importance.size(), y.importance.size());
    for (size_t k = 0; k < x.anchor.size(); ++k) {
      EXPECT_EQ(Bits(x.anchor[k]), Bits(y.anchor[k])) << x.name << "[" << k << "]";
      EXPECT_EQ(Bits(x.importance[k]), Bits(y.importance[k])) << x.name << "[" << k << "]";
    }
  }
}

TEST(Snapshot, RoundTripsBitExactly) {
  const Snapshot s = AwkwardSnapshot();
  auto bytes = SerializeSnapshot(s);
  ASSERT_TRUE(bytes.ok()) << bytes.status().message();
  auto back = DeserializeSnapshot(*bytes);
  ASSERT_TRUE(back.ok()) << back.status().message();
  ExpectBitEqual(s, *back);
  auto again = SerializeSnapshot(*back);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *bytes);  // canonical: content-addressable
  EXPECT_EQ(back->num_values(), 14);
  ASSERT_NE(back->Find("decoder.bias"), nullptr);
  EXPECT_EQ(back->Find("missing"), nullptr);
}

// The layout of docs/lifelong.md, written out by hand for a one-tensor snapshot.
TEST(Snapshot, LayoutIsPinned) {
  Snapshot s;
  s.method = "m";
  s.intrinsics = {"ab"};
  s.metadata = {{"k", "v"}};
  s.tensors = {{"w", {2}, {1.0f, -2.0f}, {0.5f, 0.0f}}};
  auto bytes = SerializeSnapshot(s);
  ASSERT_TRUE(bytes.ok());
  const std::string payload = std::string("\x01\0\0\0m", 5) +              // method
                              std::string("\x01\0\0\0\x02\0\0\0ab", 10) +  // intrinsics
                              std::string("\x01\0\0\0\x01\0\0\0k\x01\0\0\0v", 14) +  // metadata
                              std::string("\x01\0\0\0\x01\0\0\0w", 9) +    // 1 tensor, name
                              std::string("\x01\0\0\0\x02\0\0\0\0\0\0\0", 12) +  // rank 1, shape {2}
                              std::string("\x02\0\0\0\0\0\0\0", 8) +       // count
                              std::string("\0\0\x80\x3f\0\0\0\xc0", 8) +   // anchor 1, -2
                              std::string("\0\0\0\x3f\0\0\0\0", 8);        // importance 0.5, 0
  const std::string header = std::string("UCMOHSNP\x01\0\0\0\0\0\0\0", 16) +
                             std::string(1, static_cast<char>(payload.size())) + std::string(7, '\0');
  ASSERT_EQ(bytes->size(), header.size() + payload.size() + 32);
  EXPECT_EQ(bytes->substr(0, header.size() + payload.size()), header + payload);
}

TEST(Snapshot, DamageIsCorruptionNotData) {
  auto bytes = SerializeSnapshot(AwkwardSnapshot());
  ASSERT_TRUE(bytes.ok());
  for (size_t pos : {size_t{3}, size_t{30}, bytes->size() / 2, bytes->size() - 1}) {
    std::string flipped = *bytes;
    flipped[pos] ^= 0x10;
    auto r = DeserializeSnapshot(flipped);
    ASSERT_FALSE(r.ok()) << "flipped byte " << pos;
    EXPECT_EQ(r.status().code(), Status::Code::kCorruption) << r.status().message();
  }
  auto truncated = DeserializeSnapshot(bytes->substr(0, bytes->size() - 5));
  EXPECT_EQ(truncated.status().code(), Status::Code::kCorruption);
  auto extended = DeserializeSnapshot(*bytes + "x");
  EXPECT_EQ(extended.status().code(), Status::Code::kCorruption);
  EXPECT_EQ(DeserializeSnapshot("").status().code(), Status::Code::kCorruption);

  std::string newer = *bytes;
  newer[8] = 2;  // format version 2
  auto r = DeserializeSnapshot(newer);
  EXPECT_EQ(r.status().code(), Status::Code::kUnsupported) << r.status().message();
}

TEST(Snapshot, InconsistentSnapshotsAreRefused) {
  Snapshot s;
  s.tensors = {{"w", {2, 2}, {1, 2, 3}, {1, 2, 3}}};
  EXPECT_EQ(SerializeSnapshot(s).status().code(), Status::Code::kInvalidArgument);
  s.tensors = {{"w", {1}, {1}, {1}}, {"w", {1}, {1}, {1}}};
  EXPECT_EQ(SerializeSnapshot(s).status().code(), Status::Code::kInvalidArgument);
  Snapshot a, b;
  a.tensors = {{"w", {1}, {1}, {1}}};
  b.tensors = {{"v", {1}, {1}, {1}}};
  EXPECT_FALSE(CheckSameLayout(a, b).ok());
  EXPECT_TRUE(CheckSameLayout(a, a).ok());
}

}  // namespace
}  // namespace ucmoh
