// Measured AST programs (docs/ast-json.md, with latency_s) as records: what
// `import ast`, `import metaschedule` and `collect metaschedule` share.
#pragma once

#include <string>
#include <vector>

#include "ucmoh/plugin_loader.h"
#include "ucmoh/record.h"
#include "ucmoh/status.h"

namespace ucmoh::cli {

// The programs of `file` (JSON Lines or an array) as records. Each record's
// provenance is {kind, source, {format, program: its 1-based position}}.
Expected<std::vector<Record>> AstRecords(const PluginSet& plugins, const std::string& file, const std::string& kind,
                                         const std::string& source, const std::string& format);

}  // namespace ucmoh::cli
