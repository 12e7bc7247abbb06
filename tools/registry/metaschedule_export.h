// Runs ucmoh.tvm.database (python/ucmoh/tvm/database.py), which replays a
// MetaSchedule JSON database through TVM and writes its measured candidates
// as AST JSON Lines: the one part of `registry import metaschedule` that
// needs TVM, and so Python.
#pragma once

#include <string>

#include "ucmoh/status.h"

namespace ucmoh::cli {

struct ExportOptions {
  std::string python;  // the interpreter with TVM; "" = $UCMOH_PYTHON, else python3
};

// Writes `database_dir`'s programs to `output`. The child finds libucmoh and
// the ucmoh package next to this executable when UCMOH_LIBRARY / PYTHONPATH
// do not say (a build tree or an install prefix); its stderr is the user's.
Status ExportMetaScheduleDatabase(const std::string& database_dir, const std::string& output,
                                  const ExportOptions& options);

}  // namespace ucmoh::cli
