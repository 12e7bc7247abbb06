// CUTLASS profiler CSVs (plugins/tensorcore/cutlass_importer.cpp): rows of
// fprop / dgrad / wgrad kernels become tensor-core records.
#include "cutlass_importer.h"
#include "fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ucmoh;
  auto records = tensorcore::ImportCutlassCsv(fuzz::AsFile(data, size, ".csv"));
  if (!records.ok()) fuzz::CheckRefusal(records.status());
  return 0;
}
