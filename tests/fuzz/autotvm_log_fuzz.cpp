// AutoTVM tuning logs (plugins/x86/src/autotvm_*.cpp): TVM's JSON Lines of
// the x86 dense / batch_matmul templates become x86 records.
#include "fuzz_target.h"
#include "ucmoh/x86/autotvm_importer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ucmoh;
  auto imported = x86::ImportAutoTvmLog(fuzz::AsFile(data, size, ".log"));
  if (!imported.ok()) fuzz::CheckRefusal(imported.status());
  return 0;
}
