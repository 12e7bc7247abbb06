// The arm plugin module's only export: its factory (see plugin.h).
#include "ucmoh/arm/arm_plugin.h"

#include "ucmoh/plugin_c_adapter.h"

UCMOH_DEFINE_PLUGIN(ucmoh::arm::ArmPlugin)
