// The parts of the CLI that need TVM run its Python modules in a child
// process: `import metaschedule` (ucmoh.tvm.database replays a MetaSchedule
// JSON database into ASTs) and `collect metaschedule` (ucmoh.tvm.collect
// samples and measures network tasks). This file finds the interpreter, checks
// that it has TVM, and runs a module with libucmoh and the package found.
#pragma once

#include <string>
#include <vector>

#include "ucmoh/status.h"

namespace ucmoh::cli {

struct TvmPythonOptions {
  // The interpreter with TVM; "" = $UCMOH_PYTHON, else the project's .venv
  // (where tools/setup-tvm installs TVM), else python3 on PATH.
  std::string python;
};

// The interpreter `options` name, and the fallbacks above.
std::string TvmPython(const TvmPythonOptions& options);

// Runs `python -m module args...`; its stdout and stderr are the user's.
// An interpreter without TVM is one error line that says how to get it.
// Returns the child's exit status.
Expected<int> RunTvmModule(const TvmPythonOptions& options, const std::string& module,
                           const std::vector<std::string>& args);

// ucmoh.tvm.database: `database_dir`'s measured programs as AST JSON Lines in `output`.
Status ExportMetaScheduleDatabase(const std::string& database_dir, const std::string& output,
                                  const TvmPythonOptions& options);

}  // namespace ucmoh::cli
