// Built twice: as target "toy" and as target "toyclone" (TOY_TARGET), both
// claiming the intrinsic "toy.mac8". Loaded together, the loader must name
// both plugins; "toyclone" alone breaks the "<target>.<name>" rule.
#include "minimal_plugin.h"

namespace broken {
class ClaimsToyMac8 : public MinimalPlugin {
 public:
  ClaimsToyMac8() : MinimalPlugin(TOY_TARGET, {"toy.mac8"}) {}
};
}  // namespace broken

UCMOH_DEFINE_PLUGIN(broken::ClaimsToyMac8)
