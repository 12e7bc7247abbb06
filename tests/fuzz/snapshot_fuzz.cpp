// Fisher snapshots (core/snapshot.cpp): the registry's snapshot blobs and a
// pulled model's forgetting state. Each input is decoded as it is (the
// frame's checks), and framed afresh with a valid checksum, so that mutations
// reach the payload decoder instead of stopping at the SHA-256.
#include "fuzz_target.h"
#include "ucmoh/snapshot.h"

namespace {

void DecodeAndRoundTrip(const std::string& input) {
  using namespace ucmoh;
  auto snapshot = DeserializeSnapshot(input);
  if (!snapshot.ok()) {
    ucmoh::fuzz::CheckRefusal(snapshot.status());
    return;
  }
  auto bytes = SerializeSnapshot(*snapshot);
  UCMOH_FUZZ_CHECK(bytes.ok(), "an accepted snapshot does not serialize");
  auto again = DeserializeSnapshot(*bytes);
  UCMOH_FUZZ_CHECK(again.ok(), "a snapshot's own bytes do not parse");
  auto bytes_again = SerializeSnapshot(*again);
  UCMOH_FUZZ_CHECK(bytes_again.ok() && *bytes_again == *bytes, "a snapshot changes on a round trip");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ucmoh::fuzz::DecodeAsIsAndReframed(ucmoh::kSnapshotFrame, data, size, DecodeAndRoundTrip);
  return 0;
}
