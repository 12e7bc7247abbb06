// Program lines (core/record_json.cpp): what ucmoh-measure serve reads from
// the driving host, and the driving host reads back from plan.
#include "fuzz_target.h"
#include "ucmoh/record_json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ucmoh;
  auto program = ProgramFromJsonLine(fuzz::Bytes(data, size));
  if (!program.ok()) {
    fuzz::CheckRefusal(program.status());
    return 0;
  }
  const std::string line = ProgramToJsonLine(*program);
  auto again = ProgramFromJsonLine(line);
  UCMOH_FUZZ_CHECK(again.ok(), "a program's own line does not parse");
  UCMOH_FUZZ_CHECK(ProgramToJsonLine(*again) == line, "a program's line changes on a round trip");
  return 0;
}
