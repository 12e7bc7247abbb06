// Model files (core/cost_model.cpp, LibTorch's serializer underneath): what
// `registry train -o`, `--from` and the registry's weights blobs hold.
#include "fuzz_target.h"
#include "ucmoh/cost_model.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ucmoh;
  auto model = CostModel::Load(fuzz::AsFile(data, size, ".pt"));
  if (!model.ok()) fuzz::CheckRefusal(model.status());
  return 0;
}
