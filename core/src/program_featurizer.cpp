#include "ucmoh/program_featurizer.h"

namespace ucmoh {

Expected<ProgramAst> LowerRecord(const PluginSet& plugins, const Record& record) {
  const LoadedPlugin* plugin = plugins.ForIntrinsic(record.intrinsic);
  if (!plugin)
    return Status::NotFound("no loaded plugin supplies intrinsic '" + record.intrinsic +
                            "' (see `registry plugins`)");
  if (plugin->target.name != record.target)
    return Status::InvalidArgument("intrinsic '" + record.intrinsic + "' belongs to target '" +
                                   plugin->target.name + "', not '" + record.target + "'");
  return plugin->plugin->Lower(record.task, record.intrinsic, record.schedule, record.hardware);
}

Expected<TokenMatrix> FeaturizeRecord(const PluginSet& plugins, const Record& record) {
  auto ast = LowerRecord(plugins, record);
  if (!ast.ok()) return ast.status();
  return Featurize(*ast, record.hardware, *plugins.Intrinsic(record.intrinsic));
}

}  // namespace ucmoh
