// One line of an AutoTVM tuning log: TVM's own JSON Lines format (log
// version 0.2), the files `autotvm.callback.log_to_file` writes:
//
//   {"input": [target, template, [args...], {}],
//    "config": {"index": i, "code_hash": null, "entity": [[knob, kind, value], ...]},
//    "result": [[cost_s, ...], error_no, all_cost_s, timestamp],
//    "version": 0.2, "tvm_version": "0.8.dev0"}
//
// This is only the syntax; which templates and knobs mean what is
// autotvm_templates.h's job.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ucmoh/status.h"

namespace ucmoh::x86 {

// A ["TENSOR", shape, dtype] argument; other arguments (null, a dtype string,
// batch_matmul's output shape) are kept as `shape` when they are a list of
// integers and skipped otherwise.
struct AutoTvmArg {
  bool is_tensor = false;
  std::vector<int64_t> shape;
  std::string dtype;
};

// A knob of the configuration. "sp" (split) and "re" (reorder) hold integers;
// "ot" (other) holds one integer; "an" (annotate) holds names.
struct AutoTvmKnob {
  std::string name;
  std::string kind;
  std::vector<int64_t> values;
  std::vector<std::string> names;
};

struct AutoTvmEntry {
  std::string target;         // "llvm -keys=cpu -mcpu=skylake-avx512 -model=platinum-8124m"
  std::string template_name;  // "dense_pack.x86"
  std::vector<AutoTvmArg> args;
  int64_t config_index = 0;
  std::vector<AutoTvmKnob> knobs;
  std::vector<double> costs_s;  // one mean per repeat
  int64_t error_no = 0;         // 0: the costs are latencies; otherwise a failure
  double all_cost_s = 0;        // build + run wall time of the measurement
  double timestamp = 0;
  std::string tvm_version;
};

// Parses one line. Errors name the field ("result[1] is not an integer");
// the caller adds FILE:LINE.
Expected<AutoTvmEntry> ParseAutoTvmLine(std::string_view line);

// TVM's MeasureErrorNo names ("RUN_TIMEOUT", ...), "UNKNOWN(n)" beyond them.
std::string AutoTvmErrorName(int64_t error_no);

}  // namespace ucmoh::x86
