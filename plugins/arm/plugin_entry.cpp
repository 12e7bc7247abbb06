// The arm plugin module's only export: its factory (see plugin.h).
#include "ucmoh/arm/arm_plugin.h"

UCMOH_DEFINE_PLUGIN(ucmoh::arm::ArmPlugin)
