// A library that says it is "x86" while the manifest lists it under another
// name: the loader must not let it stand in for (or shadow) the real target.
#include "minimal_plugin.h"

namespace broken {
class ClaimsX86 : public MinimalPlugin {
 public:
  ClaimsX86() : MinimalPlugin("x86", {"x86.fake_dot"}) {}
};
}  // namespace broken

UCMOH_DEFINE_PLUGIN(broken::ClaimsX86)
