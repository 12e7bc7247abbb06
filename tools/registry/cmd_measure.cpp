// Placeholder until this subcommand lands; being written now.
#include "commands.h"

namespace ucmoh::cli {

Command AddMeasureCommand(CLI::App& app, const GlobalOptions& global) {
  auto* sub = app.add_subcommand("measure", "(not built yet)");
  return {sub, []() { return Fail(Status::Unsupported("measure is not built yet")); }};
}

}  // namespace ucmoh::cli
