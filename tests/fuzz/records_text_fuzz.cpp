// Records JSON Lines text (core/record_json.cpp, records_io.cpp): what
// `registry records add`, the C API's update and every records file read.
#include "fuzz_target.h"
#include "ucmoh/records_io.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ucmoh;
  auto records = ParseRecordsText(fuzz::Bytes(data, size));
  if (!records.ok()) {
    fuzz::CheckRefusal(records.status());
    return 0;
  }
  for (const Record& record : *records) {
    const std::string line = RecordToJsonLine(record);
    auto again = RecordFromJsonLine(line);
    UCMOH_FUZZ_CHECK(again.ok(), "a record's own line does not parse");
    UCMOH_FUZZ_CHECK(RecordToJsonLine(*again) == line, "a record's line changes on a round trip");
    UCMOH_FUZZ_CHECK(ProgramKey(*again) == ProgramKey(record), "a record's program key changes on a round trip");
  }
  return 0;
}
