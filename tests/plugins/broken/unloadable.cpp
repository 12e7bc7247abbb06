// A valid plugin built with -fno-gnu-unique, so that dlclose really unmaps it
// (header-only Boost.System and libstdc++ otherwise leave STB_GNU_UNIQUE
// symbols that pin a library forever). It lets the tests see exactly when
// the loader opens and closes a library.
#include "minimal_plugin.h"

namespace broken {
class Unloadable : public MinimalPlugin {
 public:
  Unloadable() : MinimalPlugin("unloadable", {"unloadable.dot4"}) {}
};
}  // namespace broken

UCMOH_DEFINE_PLUGIN(broken::Unloadable)
