// What every subcommand of the `registry` tool shares: global options, the
// loaded plugins, and the one way to report an error.
#pragma once

#include <string>
#include <vector>

#include "ucmoh/plugin_loader.h"
#include "ucmoh/status.h"

namespace ucmoh::cli {

struct GlobalOptions {
  std::string plugins_manifest;  // --plugins, else DefaultPluginManifestPath()
  std::string db_path;           // --db, else $UCMOH_REGISTRY, else ./registry.db
  std::vector<std::string> argv;  // the whole command line: local workers rerun it (cli_workers.h)
};

// Loads the manifest's plugins once per process.
Expected<const PluginSet*> Plugins(const GlobalOptions& options);

// Prints "error: <message>" as one line on stderr; returns the exit code 1.
int Fail(const Status& status);

}  // namespace ucmoh::cli
