// Built against a "future" major: its table reports UCMOH_PLUGIN_C_MAJOR + 41.
// The loader must refuse it after reading the version and before calling
// anything in the table, so every entry aborts to prove none is called (a
// call would kill the test binary, not pass quietly).
#include <cstdlib>

#include "ucmoh/plugin_c.h"

namespace {
UcmohError* Abort(void*) { std::abort(); }
}  // namespace

extern "C" __attribute__((visibility("default"))) const UcmohPluginApi* ucmoh_plugin_c_api() {
  static UcmohPluginApi table = [] {
    UcmohPluginApi t{};
    t.struct_size = sizeof(t);
    t.major = UCMOH_PLUGIN_C_MAJOR + 41;
    t.minor = 0;
    t.plugin_create = reinterpret_cast<UcmohError* (*)(UcmohPluginCreateArgs*)>(&Abort);
    return t;
  }();
  return &table;
}
