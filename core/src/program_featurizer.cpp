#include "ucmoh/program_featurizer.h"

#include <nlohmann/json.hpp>

#include "ucmoh/ast_program.h"
#include "plugin_c_host.h"
#include "ucmoh/hardware_json.h"

namespace ucmoh {

namespace {

// A record that carries its program: the AST, completed by the record's own
// task and hardware (the plugin's template values depend on the machine).
Expected<ProgramAst> ParseRecordAst(const PluginSet& plugins, const Record& record) {
  auto j = nlohmann::json::parse(record.ast, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return Status::InvalidArgument("'ast' is not a JSON object");
  j["task"] = record.task.key;
  j["hardware"] = HardwareToJson(record.hardware);
  j.erase("latency_s");
  auto program = ParseAstProgram(j.dump(), plugins, "$.ast");
  if (!program.ok()) return program.status();
  if (program->intrinsic != record.intrinsic)
    return Status::InvalidArgument("$.ast.intrinsic: '" + program->intrinsic + "', but the record's is '" +
                                   record.intrinsic + "'");
  return std::move(program->ast);
}

}  // namespace

Expected<ProgramAst> LowerRecord(const PluginSet& plugins, const Record& record) {
  const LoadedPlugin* plugin = plugins.ForIntrinsic(record.intrinsic);
  if (!plugin)
    return Status::NotFound("no loaded plugin supplies intrinsic '" + record.intrinsic +
                            "' (see `registry plugins`)");
  if (plugin->target.name != record.target)
    return Status::InvalidArgument("intrinsic '" + record.intrinsic + "' belongs to target '" +
                                   plugin->target.name + "', not '" + record.target + "'");
  if (!record.ast.empty()) return ParseRecordAst(plugins, record);
  return plugin->plugin->Lower(record.task, record.intrinsic, record.schedule, record.hardware);
}

Expected<TokenMatrix> FeaturizeRecord(const PluginSet& plugins, const Record& record) {
  const LoadedPlugin* plugin = plugins.ForIntrinsic(record.intrinsic);
  if (plugin && plugin->target.name == record.target && record.ast.empty())
    if (auto tokens = LowerToTokensThroughC(*plugin->plugin, record, *plugins.Intrinsic(record.intrinsic)))
      return std::move(*tokens);
  auto ast = LowerRecord(plugins, record);
  if (!ast.ok()) return ast.status();
  return Featurize(*ast, record.hardware, *plugins.Intrinsic(record.intrinsic));
}

}  // namespace ucmoh
