// Placeholder until this subcommand lands; being written now.
#include "commands.h"

namespace ucmoh::cli {

Command AddLifelongCommand(CLI::App& app, const GlobalOptions& global) {
  auto* sub = app.add_subcommand("lifelong", "(not built yet)");
  return {sub, []() { return Fail(Status::Unsupported("lifelong is not built yet")); }};
}

}  // namespace ucmoh::cli
