// The registry's metadata values (registry/src/metadata_codec.cpp, cereal):
// intrinsic entries, model versions, snapshot entries and aliases as RocksDB
// stores them. The first byte picks the type; what decodes must encode back
// to bytes that decode to the same encoding.
#include "fuzz_target.h"
#include "metadata_codec.h"

namespace {

template <typename T>
void RoundTrip(const std::string& bytes) {
  T value;
  const ucmoh::Status status = ucmoh::registry::codec::Decode(bytes, &value);
  if (!status.ok()) {
    ucmoh::fuzz::CheckRefusal(status);
    return;
  }
  const std::string encoded = ucmoh::registry::codec::Encode(value);
  T again;
  UCMOH_FUZZ_CHECK(ucmoh::registry::codec::Decode(encoded, &again).ok(), "an encoded value does not decode");
  UCMOH_FUZZ_CHECK(ucmoh::registry::codec::Encode(again) == encoded, "a value changes on a round trip");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ucmoh::registry;
  if (size == 0) return 0;
  const std::string bytes = ucmoh::fuzz::Bytes(data + 1, size - 1);
  switch (data[0] % 4) {
    case 0: RoundTrip<IntrinsicEntry>(bytes); break;
    case 1: RoundTrip<ModelVersion>(bytes); break;
    case 2: RoundTrip<SnapshotEntry>(bytes); break;
    default: RoundTrip<AliasEntry>(bytes); break;
  }
  return 0;
}
