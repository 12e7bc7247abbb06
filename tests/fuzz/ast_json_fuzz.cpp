// Programs as AST JSON (core/ast_program.cpp, simdjson): what compilers send
// through libucmoh and `registry predict --ast` reads. The project's plugins
// (plugins.json of the source tree) give the template values; whatever
// parses must featurize or refuse with a message.
#include "fuzz_target.h"
#include "ucmoh/ast_program.h"
#include "ucmoh/plugin_loader.h"

namespace {

const ucmoh::PluginSet& Plugins() {
  static const ucmoh::PluginSet plugins = [] {
    auto loaded = ucmoh::LoadPlugins(std::string(UCMOH_SOURCE_DIR) + "/plugins.json");
    UCMOH_FUZZ_CHECK(loaded.ok(), "the project's plugins do not load (build them first)");
    return std::move(*loaded);
  }();
  return plugins;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ucmoh;
  auto programs = ParseAstPrograms(fuzz::Bytes(data, size), Plugins());
  if (!programs.ok()) {
    fuzz::CheckRefusal(programs.status());
    return 0;
  }
  for (const AstProgram& program : *programs) {
    auto tokens = FeaturizeAstProgram(Plugins(), program);
    if (!tokens.ok()) fuzz::CheckRefusal(tokens.status());
  }
  return 0;
}
