// Built against a "future" interface: ucmoh_plugin_abi reports
// kPluginAbiVersion + 41. The loader must refuse it after reading that int
// and before calling the factory, so the factory aborts to prove it is never
// called (a call would kill the test binary, not pass quietly).
#include <cstdlib>

#include "minimal_plugin.h"

namespace abi_mismatch {
inline int abi() { return ::ucmoh::kPluginAbiVersion + 41; }
inline std::shared_ptr<::ucmoh::TargetPlugin> make() { std::abort(); }
}  // namespace abi_mismatch

BOOST_DLL_ALIAS(abi_mismatch::abi, ucmoh_plugin_abi)
BOOST_DLL_ALIAS(abi_mismatch::make, ucmoh_plugin_make)
