// The plugin module's only job: export the factory of TensorCorePlugin.
#include "tensorcore_plugin.h"

#include "ucmoh/plugin_c_adapter.h"

UCMOH_DEFINE_PLUGIN(ucmoh::tensorcore::TensorCorePlugin)
