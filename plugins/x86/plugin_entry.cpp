// The x86 plugin module's only export: its factory (see plugin.h).
#include "ucmoh/x86/x86_plugin.h"

#include "ucmoh/plugin_c_adapter.h"

UCMOH_DEFINE_PLUGIN(ucmoh::x86::X86Plugin)
