// The server's HTML pages (docs/serve.md, "Pages"): plain HTML with inline
// SVG, rendered from the registry on each request. Each returns the page or
// the error that kept it from being built.
#pragma once

#include <string>

#include "ucmoh/plugin_loader.h"
#include "ucmoh/registry/registry_store.h"

namespace ucmoh::server {

// "/": every version with its lineage graph, aliases, ACC / BWT.
Expected<std::string> VersionsPage(const registry::RegistryStore& store);
// "/versions/REF": R as heatmaps (PCA, top-1), ACC / BWT, per-intrinsic
// metrics, hyper-parameters, snapshots, and the files to pull.
Expected<std::string> VersionPage(const registry::RegistryStore& store, const std::string& ref);
// "/plugins": the loaded plugins, their hardware and intrinsics, with record
// counts and the version that learned each.
Expected<std::string> PluginsPage(const registry::RegistryStore& store, const PluginSet& plugins);
// "/events": the event log, newest first.
Expected<std::string> EventsPage(const registry::RegistryStore& store);

}  // namespace ucmoh::server
