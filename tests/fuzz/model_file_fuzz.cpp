// Model files (core/model_file.cpp, format 2): what `registry train -o`,
// `--from`, `evaluate --model`, the registry's weights blobs and pulled
// `weights.bin` hold. Each input is decoded twice: as it is (the frame's
// checks), and framed afresh with a valid checksum, so that mutations reach
// the payload decoder instead of stopping at the SHA-256. Format 1 (a
// TorchScript archive) must be refused without LibTorch parsing it.
#include "fuzz_target.h"
#include "ucmoh/cost_model.h"

namespace {

void DecodeAndRoundTrip(const std::string& bytes) {
  using namespace ucmoh;
  auto model = CostModel::FromBytes(bytes);
  if (!model.ok()) {
    ucmoh::fuzz::CheckRefusal(model.status());
    return;
  }
  auto again = model->ToBytes();
  UCMOH_FUZZ_CHECK(again.ok(), "an accepted model does not serialize");
  auto reloaded = CostModel::FromBytes(*again);
  UCMOH_FUZZ_CHECK(reloaded.ok(), "a model's own bytes do not load");
  auto twice = reloaded->ToBytes();
  UCMOH_FUZZ_CHECK(twice.ok() && *twice == *again, "a model changes on a round trip");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ucmoh::fuzz::DecodeAsIsAndReframed(ucmoh::kModelFileFrame, data, size, DecodeAndRoundTrip);
  return 0;
}
