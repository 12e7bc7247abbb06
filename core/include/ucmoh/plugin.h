// The interface a target plugin implements, in C++. A plugin is a shared
// library that exports one C symbol, ucmoh_plugin_c_api, returning the
// versioned function table of ucmoh/plugin_c.h; a vendor writes this class and
// puts UCMOH_DEFINE_PLUGIN(MyPlugin) (ucmoh/plugin_c_adapter.h) in one source
// file, so only C crosses the library boundary. The host wraps every loaded
// table in this same interface for the rest of core. docs/plugin-abi.md walks
// a vendor through it.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ucmoh/plugin_c.h"
#include "ucmoh/program_ast.h"
#include "ucmoh/record.h"
#include "ucmoh/status.h"
#include "ucmoh/target.h"

namespace ucmoh {

// The plugin ABI's major version, what plugins.json's "abi" names: the C
// table's (ucmoh/plugin_c.h). 1-4 were this C++ class crossing the boundary
// itself (4: Import returns ImportResult); 5 is the first C ABI.
constexpr int kPluginAbiVersion = UCMOH_PLUGIN_C_MAJOR;

struct MeasureOptions {
  int threads = 0;               // 0: what the schedule asks for
  double min_repeat_seconds = 0.05;
  int min_repeats = 5;
  double max_cv = 0.05;          // re-measure (once) above this
};

// What an importer read: the records (the result is their vector) and the
// entries it read but did not turn into records, counted by reason (AutoTVM:
// "BUILD_TIMEOUT": 647), so a failed measurement is reported, never a latency.
struct ImportResult : std::vector<Record> {
  std::map<std::string, int64_t> skipped;
};

class TargetPlugin {
 public:
  virtual ~TargetPlugin() = default;

  virtual TargetInfo Target() const = 0;
  virtual std::vector<IntrinsicInfo> Intrinsics() const = 0;

  // Meaning of the kTemplateDims values this plugin writes into its stages,
  // one short name each (documented in docs/features.md).
  virtual std::vector<std::string> TemplateDimNames() const = 0;

  // Lowers a program (task + schedule on one of this plugin's intrinsics, run
  // on `hardware`: the record's, never this host's) to the AST of what runs,
  // filling each stage's template values. Validation (does the schedule fit
  // that machine?) reads `hardware` too; refuse hardware the plugin cannot
  // model with a message that names it.
  virtual Expected<ProgramAst> Lower(const Task& task, const std::string& intrinsic,
                                     const ParamMap& schedule,
                                     const HardwareParams& hardware) const = 0;

  // Programs given as ASTs (docs/ast-json.md) carry no schedule of this
  // plugin's family, so the plugin computes their template values from
  // named program-level inputs instead. Lower must fill ProgramAst's
  // template_inputs with these names and every stage's template values with
  // StageTemplate's result for it, so that a lowered program and its AST
  // form give the same tokens. A plugin that lists no names does not take
  // programs as ASTs.
  virtual std::vector<std::string> TemplateInputNames() const { return {}; }
  virtual Expected<TemplateValues> StageTemplate(const std::string& intrinsic, const TemplateInputs& inputs,
                                                 const Stage& stage, const HardwareParams& hardware) const {
    (void)inputs; (void)stage; (void)hardware;
    return Status::Unsupported(Target().name + " does not take programs of " + intrinsic + " as ASTs");
  }

  // Named task suites (e.g. "resnet50") and their tasks for one intrinsic.
  virtual std::vector<std::string> TaskSuites() const { return {}; }
  virtual Expected<std::vector<Task>> Tasks(const std::string& suite,
                                            const std::string& intrinsic) const {
    return Status::NotFound("no task suite '" + suite + "' for " + intrinsic);
  }

  // Draws `count` distinct valid schedules for a task, reproducibly from
  // `seed`, valid on Target().hardware (the machine new measurements run on).
  virtual Expected<std::vector<ParamMap>> SampleSchedules(const Task& task,
                                                          const std::string& intrinsic,
                                                          int64_t count,
                                                          uint64_t seed) const = 0;

  // Optional: foreign data formats this plugin imports ("cutlass", ...).
  virtual std::vector<std::string> Importers() const { return {}; }
  virtual Expected<ImportResult> Import(const std::string& format,
                                               const std::string& path) const {
    return Status::Unsupported(Target().name + " has no importer '" + format + "' for " + path);
  }

  // Optional: run a program on this host and time it. The record it returns
  // carries this host's hardware (Target().hardware, with its nominal clock).
  virtual Status CanMeasure(const std::string& intrinsic) const {
    return Status::Unsupported(Target().name + " cannot measure " + intrinsic + " on this host");
  }
  virtual Expected<Record> Measure(const Task& task, const std::string& intrinsic,
                                   const ParamMap& schedule,
                                   const MeasureOptions& options) const {
    (void)task; (void)schedule; (void)options;
    return Status::Unsupported(Target().name + " cannot measure " + intrinsic + " on this host");
  }
};

}  // namespace ucmoh
