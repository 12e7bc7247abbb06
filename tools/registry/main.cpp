// `registry`: the command-line driver of the UCMoH registry. docs/cli.md is
// its reference. Every subcommand has --help; errors are one line on stderr
// and a non-zero exit.
#include <CLI/CLI.hpp>
#include <cstdlib>
#include <vector>

#include "commands.h"

int main(int argc, char** argv) {
  using namespace ucmoh::cli;
  CLI::App app{"UCMoH registry: a lifelong-learning cost-model registry for tensorized programs"};
  app.require_subcommand(1);
  GlobalOptions global;
  global.argv.assign(argv, argv + argc);
  app.add_option("--plugins", global.plugins_manifest,
                 "plugins.json to load (default: $UCMOH_PLUGINS, ./plugins.json, or the build's)");
  app.add_option("--db", global.db_path, "registry database (default: $UCMOH_REGISTRY or ./registry.db)");

  const std::vector<Command> commands = {
      AddPluginsCommand(app, global),
      AddImportCommand(app, global),
      AddCollectCommand(app, global),
      AddFeaturesCommand(app, global),
      AddMeasureCommand(app, global),
      AddTrainCommand(app, global),
      AddEvaluateCommand(app, global),
      AddConvertModelCommand(app, global),
      AddLifelongCommand(app, global),
      AddInitCommand(app, global),
      AddIntrinsicsCommand(app, global),
      AddRecordsCommand(app, global),
      AddAddIntrinsicCommand(app, global),
      AddVersionsCommand(app, global),
      AddShowCommand(app, global),
      AddEvalCommand(app, global),
      AddAliasCommand(app, global),
      AddEventsCommand(app, global),
      AddVerifyCommand(app, global),
      AddGcCommand(app, global),
      AddPullCommand(app, global),
      AddServeCommand(app, global),
      AddPredictCommand(app, global),
  };

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  for (const auto& command : commands)
    if (command.app->parsed()) return command.run();
  return 1;
}
