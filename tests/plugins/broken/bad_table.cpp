// A plugin whose C table is wrong in one way, chosen by BAD_TABLE at build
// time: "short" (shorter than minor 0's table), "null_lower" (a required
// function missing), "silent_error" (plugin_create fails with an empty
// message), "old_cpp_abi" (the C++ ABI's symbol, no C entry point). Each must
// give one clear error when loaded, never a crash.
#include <cstdlib>
#include <cstring>

#include "minimal_plugin.h"

namespace broken {
class Silent : public MinimalPlugin {
 public:
  Silent() : MinimalPlugin("silent", {"silent.dot4"}) {}
};
}  // namespace broken

#if defined(BAD_TABLE_OLD_CPP_ABI)
extern "C" __attribute__((visibility("default"))) int ucmoh_plugin_abi() { return 4; }
#else
#if defined(BAD_TABLE_SILENT_ERROR)
namespace {
UcmohError* FailSilently(UcmohPluginCreateArgs*) { return new UcmohError{UCMOH_ERROR_INTERNAL, ""}; }
}  // namespace
#endif

extern "C" __attribute__((visibility("default"))) const UcmohPluginApi* ucmoh_plugin_c_api() {
  static UcmohPluginApi table = [] {
    UcmohPluginApi t = *ucmoh::plugin_c::Entries<broken::Silent>::Table();
#if defined(BAD_TABLE_SHORT)
    t.struct_size = UCMOH_STRUCT_SIZE(UcmohPluginApi, lower);
#elif defined(BAD_TABLE_NULL_LOWER)
    t.lower = nullptr;
#elif defined(BAD_TABLE_SILENT_ERROR)
    t.plugin_create = &FailSilently;
#endif
    return t;
  }();
  return &table;
}
#endif
