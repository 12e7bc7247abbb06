// The plugin module's only job: export the factory of TensorCorePlugin.
#include "tensorcore_plugin.h"

UCMOH_DEFINE_PLUGIN(ucmoh::tensorcore::TensorCorePlugin)
