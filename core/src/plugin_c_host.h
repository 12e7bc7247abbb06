// The host side of the C plugin ABI (ucmoh/plugin_c.h): checks a plugin's
// table and wraps it as the ucmoh::TargetPlugin the rest of core uses.
// Internal to core (plugin_loader.cpp calls it).
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "ucmoh/features.h"

#include "ucmoh/plugin.h"
#include "ucmoh/plugin_c.h"

namespace ucmoh {

// Refuses a table the host cannot use: another major, a table shorter than
// minor 0's, a null function where a required one belongs. The message says
// what and what to do.
Status CheckPluginTable(const UcmohPluginApi* api);

// Creates the plugin instance and reads its description. `keep_alive` (the
// library) outlives the instance.
Expected<std::shared_ptr<TargetPlugin>> MakeCTargetPlugin(const UcmohPluginApi* api,
                                                           std::shared_ptr<void> keep_alive);

// For a plugin of the C ABI: lowers `record` and featurizes the plugin's C
// view of the AST directly, with no host ProgramAst built in between (what
// BuildProgramSet does for every program). nullopt for any other plugin.
std::optional<Expected<TokenMatrix>> LowerToTokensThroughC(const TargetPlugin& plugin, const Record& record,
                                                           const IntrinsicInfo& intrinsic);

}  // namespace ucmoh
