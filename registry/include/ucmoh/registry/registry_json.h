// The registry's JSON views: what `registry versions|show|eval|events
// |intrinsics --json` print and what `registry serve` answers (docs/cli.md,
// docs/serve.md). One place, so the CLI and the HTTP API never drift apart.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ucmoh/plugin_loader.h"
#include "ucmoh/registry/registry_ops.h"
#include "ucmoh/registry/registry_store.h"

namespace ucmoh::registry {

// version -> the names of its aliases (for the views below and the pages).
Expected<std::map<int64_t, std::vector<std::string>>> AliasNamesByVersion(const RegistryStore& store);

// One version: number, parent, intrinsics, evaluation rows, ACC/BWT,
// hyper-parameters, blobs; with its aliases.
nlohmann::json VersionToJson(const ModelVersion& v, const std::vector<std::string>& aliases = {});

// Every version, ascending, each with its aliases.
Expected<nlohmann::json> VersionsJson(const RegistryStore& store);
// One page of it: at most `limit` versions numbered `from` or more.
Expected<nlohmann::json> VersionsJson(const RegistryStore& store, int64_t from, size_t limit);

// One version (VersionToJson) with its aliases and snapshots.
Expected<nlohmann::json> VersionDetailJson(const RegistryStore& store, int64_t version);

// The lineage matrix R (EvaluationMatrix): rows, columns, PCA and top-1 with
// null where not evaluated, ACC and BWT.
nlohmann::json EvaluationMatrixToJson(const LineageMatrix& m);

nlohmann::json EventsToJson(const std::vector<Event>& events);
nlohmann::json AliasesToJson(const std::vector<AliasEntry>& aliases);

// Every intrinsic a plugin supplies or the registry knows: its plugin,
// whether that plugin is loaded, its record count, the version that learned it.
Expected<nlohmann::json> IntrinsicsJson(const RegistryStore& store, const PluginSet& plugins);

// {"plugins": [...]}: each loaded plugin, its library, ABI, hardware and intrinsics.
nlohmann::json PluginsToJson(const PluginSet& plugins);

}  // namespace ucmoh::registry
