// Each subcommand registers its flags on the CLI11 app and returns the
// function that runs it. Commands are thin: parse, call a library, print.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

#include "cli_context.h"

namespace ucmoh::cli {

using Runner = std::function<int()>;

// A registered subcommand and the function that runs it once parsed.
struct Command {
  CLI::App* app;
  Runner run;
};

Command AddPluginsCommand(CLI::App& app, const GlobalOptions& global);
Command AddImportCommand(CLI::App& app, const GlobalOptions& global);
Command AddCollectCommand(CLI::App& app, const GlobalOptions& global);
Command AddFeaturesCommand(CLI::App& app, const GlobalOptions& global);
Command AddMeasureCommand(CLI::App& app, const GlobalOptions& global);
Command AddTrainCommand(CLI::App& app, const GlobalOptions& global);
Command AddEvaluateCommand(CLI::App& app, const GlobalOptions& global);
Command AddConvertModelCommand(CLI::App& app, const GlobalOptions& global);
Command AddLifelongCommand(CLI::App& app, const GlobalOptions& global);
Command AddInitCommand(CLI::App& app, const GlobalOptions& global);
Command AddIntrinsicsCommand(CLI::App& app, const GlobalOptions& global);
Command AddRecordsCommand(CLI::App& app, const GlobalOptions& global);
Command AddAddIntrinsicCommand(CLI::App& app, const GlobalOptions& global);
Command AddVersionsCommand(CLI::App& app, const GlobalOptions& global);
Command AddShowCommand(CLI::App& app, const GlobalOptions& global);
Command AddEvalCommand(CLI::App& app, const GlobalOptions& global);
Command AddAliasCommand(CLI::App& app, const GlobalOptions& global);
Command AddEventsCommand(CLI::App& app, const GlobalOptions& global);
Command AddVerifyCommand(CLI::App& app, const GlobalOptions& global);
Command AddGcCommand(CLI::App& app, const GlobalOptions& global);
Command AddPullCommand(CLI::App& app, const GlobalOptions& global);
Command AddServeCommand(CLI::App& app, const GlobalOptions& global);
Command AddPredictCommand(CLI::App& app, const GlobalOptions& global);

}  // namespace ucmoh::cli
