// Opening the registry store for a subcommand (--db, $UCMOH_REGISTRY, ./registry.db).
#pragma once

#include <memory>

#include "cli_context.h"
#include "ucmoh/registry/registry_path.h"
#include "ucmoh/registry/registry_store.h"

namespace ucmoh::cli {

inline Expected<std::unique_ptr<registry::RegistryStore>> OpenStore(const GlobalOptions& global,
                                                                    registry::OpenMode mode) {
  const std::string path = registry::ResolveRegistryPath(global.db_path);
  auto store = registry::RegistryStore::Open(path, mode);
  if (!store.ok() && store.status().code() == Status::Code::kNotFound && mode != registry::OpenMode::kCreate)
    return Status::NotFound(store.status().message() + " (create it with `registry init`)");
  return store;
}

}  // namespace ucmoh::cli
