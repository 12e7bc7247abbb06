// A records file through zlib (core/records_io.cpp): plain or gzip JSON
// Lines, as the committed data sets are stored and users send them.
#include "fuzz_target.h"
#include "ucmoh/records_io.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ucmoh;
  auto records = ReadRecordsFile(fuzz::AsFile(data, size, ".jsonl.gz"));
  if (!records.ok()) fuzz::CheckRefusal(records.status());
  return 0;
}
