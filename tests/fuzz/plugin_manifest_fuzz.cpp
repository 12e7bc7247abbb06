// plugins.json (core/plugin_manifest.cpp): parsed, never loaded here.
#include "fuzz_target.h"
#include "ucmoh/plugin_loader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ucmoh;
  auto entries = ParsePluginManifest(fuzz::AsFile(data, size, ".json"));
  if (!entries.ok()) fuzz::CheckRefusal(entries.status());
  return 0;
}
