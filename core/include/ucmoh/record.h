// A record: one program (task + schedule) with its measured latency and where
// that measurement came from. docs/records.md is the schema's reference.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ucmoh/params.h"
#include "ucmoh/target.h"

namespace ucmoh {

// One workload mapped onto one intrinsic: the group within which programs are ranked.
struct Task {
  std::string key;       // unique per (workload, intrinsic), e.g. "resnet50.conv2d.n256h56w56c64k256r1s1.h1688"
  std::string op;        // "conv2d", "dense", "batch_matmul", "gemm"
  ParamMap workload;     // shape and types; keys are the op's (n, h, w, c, k, r, s, ... or m, n, k)
};

struct LatencyStats {
  double median_s = 0;   // the latency that ranks programs
  double mean_s = 0;
  double min_s = 0;
  double cv = 0;         // coefficient of variation of the timed repeats; 0 when unknown
  int64_t repeats = 1;   // how many timed repeats the statistics summarize
};

struct Provenance {
  std::string kind;      // "measured" or "imported"
  std::string source;    // host description or the imported file's name
  ParamMap details;      // e.g. line, cpu_model, cpu_flags, compiler, date, cores_used, device
};

struct Record {
  std::string target;     // plugin target name, e.g. "tensorcore"
  std::string intrinsic;  // "<target>.<name>", e.g. "tensorcore.h16816"
  Task task;
  ParamMap schedule;
  LatencyStats latency;
  Provenance provenance;
  HardwareParams hardware;  // the machine the latency was measured on
  // The program itself, as AST JSON (docs/ast-json.md: "intrinsic",
  // "template_inputs", "buffers", "body"), for programs that no plugin's
  // schedule family describes: imported from a compiler (`registry import
  // metaschedule` / `import ast`). The record's task, hardware and latency
  // complete it; `schedule` repeats its template inputs for reading. Empty:
  // the plugin lowers task + schedule.
  std::string ast;
};

// A stable identity of the program a record measured (target, intrinsic,
// task key, canonical schedule, the hardware it ran on): resumable
// measurement skips records whose program key is already present, and the
// same program measured on two machines is two records. Records with an AST
// add a digest of it (their schedule alone need not tell programs apart).
std::string ProgramKey(const Record& record);

}  // namespace ucmoh
