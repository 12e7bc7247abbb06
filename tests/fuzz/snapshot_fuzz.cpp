// Fisher snapshots (core/snapshot.cpp): the registry's snapshot blobs and a
// pulled model's forgetting state.
#include "fuzz_target.h"
#include "ucmoh/snapshot.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ucmoh;
  auto snapshot = DeserializeSnapshot(fuzz::Bytes(data, size));
  if (!snapshot.ok()) {
    fuzz::CheckRefusal(snapshot.status());
    return 0;
  }
  auto bytes = SerializeSnapshot(*snapshot);
  UCMOH_FUZZ_CHECK(bytes.ok(), "an accepted snapshot does not serialize");
  auto again = DeserializeSnapshot(*bytes);
  UCMOH_FUZZ_CHECK(again.ok(), "a snapshot's own bytes do not parse");
  auto bytes_again = SerializeSnapshot(*again);
  UCMOH_FUZZ_CHECK(bytes_again.ok() && *bytes_again == *bytes, "a snapshot changes on a round trip");
  return 0;
}
