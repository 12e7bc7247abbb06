// A factory that throws: the exception must become a Status, not a crash.
#include <stdexcept>

#include "minimal_plugin.h"

namespace broken {
class ThrowsOnConstruction : public MinimalPlugin {
 public:
  ThrowsOnConstruction() : MinimalPlugin("thrower", {}) {
    throw std::runtime_error("license file /opt/vendor/license.dat missing");
  }
};
}  // namespace broken

UCMOH_DEFINE_PLUGIN(broken::ThrowsOnConstruction)
