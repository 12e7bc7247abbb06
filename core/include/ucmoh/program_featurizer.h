// Record -> tokens: find the record's plugin, lower its program, featurize.
// The one path every consumer (features report, training, prediction) uses.
// Both read the record's hardware, never this host's.
#pragma once

#include "ucmoh/features.h"
#include "ucmoh/plugin_loader.h"
#include "ucmoh/record.h"

namespace ucmoh {

Expected<ProgramAst> LowerRecord(const PluginSet& plugins, const Record& record);
Expected<TokenMatrix> FeaturizeRecord(const PluginSet& plugins, const Record& record);

}  // namespace ucmoh
