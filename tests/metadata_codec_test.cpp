// The registry's metadata codec on bytes that are not what it wrote: a
// container length beyond the bytes left is a Corruption error before any
// allocation (the fuzzer's first finding, tests/fuzz/regressions/
// registry_metadata/string_length_985gb: a string of 985 GB), and values
// still round-trip.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>

#include "metadata_codec.h"

namespace ucmoh::registry {
namespace {

TEST(MetadataCodec, ALengthBeyondTheBytesLeftIsCorruptionNotAnAllocation) {
  std::ifstream in(std::string(UCMOH_SOURCE_DIR) + "/tests/fuzz/regressions/registry_metadata/string_length_985gb",
                   std::ios::binary);
  const std::string input((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_GT(input.size(), 1u);
  IntrinsicEntry entry;
  const Status status = codec::Decode(input.substr(1), &entry);  // the fuzz target's first byte picks the type
  EXPECT_EQ(status.code(), Status::Code::kCorruption);
  EXPECT_NE(status.message().find("bytes left"), std::string::npos) << status.message();
}

TEST(MetadataCodec, ValuesRoundTrip) {
  AliasEntry alias;
  alias.name = "stable";
  alias.version = 7;
  alias.set_at = 1700000000;
  AliasEntry back;
  ASSERT_TRUE(codec::Decode(codec::Encode(alias), &back).ok());
  EXPECT_EQ(back.name, "stable");
  EXPECT_EQ(back.version, 7);
  // Every truncation of a valid value is refused with a message.
  const std::string bytes = codec::Encode(alias);
  for (size_t n = 0; n < bytes.size(); ++n) {
    const Status status = codec::Decode(bytes.substr(0, n), &back);
    EXPECT_FALSE(status.ok()) << n;
    EXPECT_FALSE(status.message().empty());
  }
}

}  // namespace
}  // namespace ucmoh::registry
