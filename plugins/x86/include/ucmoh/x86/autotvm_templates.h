// The AutoTVM x86 templates this plugin understands (TVM's topi/x86, as of
// the 0.8 logs): `dense_pack.x86`, `dense_nopack.x86` and `batch_matmul.x86`,
// fp32 with vectorized FMA. They are a second schedule family of the x86
// target beside cpu_gemm: a log entry becomes a task (template + shape) and a
// schedule (its split knobs, resolved, and the thread count), and
// autotvm_lowering.h lowers that to the AST of what TVM's schedule runs.
// docs/records.md ("AutoTVM logs") lists the keys.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ucmoh/cpu_gemm/gemm_problem.h"
#include "ucmoh/record.h"
#include "ucmoh/x86/autotvm_log.h"

namespace ucmoh::x86 {

enum class AutoTvmTemplate { kDensePack, kDenseNopack, kBatchMatmul };

// The workload key that marks a task as an AutoTVM template's.
constexpr const char* kAutoTvmTemplateKey = "template";

struct AutoTvmProgram {
  AutoTvmTemplate kind = AutoTvmTemplate::kDensePack;
  // dense: data [M, K] x weight [N, K] -> [M, N]; batch_matmul: [B, M, K] x [B, N, K] -> [B, M, N].
  cpu_gemm::GemmProblem problem;
  // Split factors, outermost first, the outer one resolved (the log writes -1).
  std::vector<int64_t> tile_y, tile_x, tile_k;
  int64_t threads = 1;  // the runtime's thread pool size
};

bool IsAutoTvmTask(const Task& task);

struct AutoTvmTaskSchedule {
  Task task;
  ParamMap schedule;
};

// The task and schedule of a log entry. Task: op "dense" or "batch_matmul",
// workload m, n, k, batch, in_type and acc_type (the intrinsic's) and the
// template name; key "autotvm.<template op>.[b<B>_]m<M>_n<N>_k<K>.<intrinsic's
// short name>". Schedule: "tile_y_0", "tile_y_1", ... (each split's factors,
// outermost first) and "threads". Refuses other templates, dtypes and
// argument shapes, and knobs that are missing, unknown or whose factors do
// not divide their extent, naming them.
Expected<AutoTvmTaskSchedule> AutoTvmTaskScheduleOf(const AutoTvmEntry& entry, const IntrinsicInfo& intrinsic,
                                                    int64_t threads);

// Reads a task and schedule made above back, checking them again (records
// come from files).
Expected<AutoTvmProgram> AutoTvmProgramOf(const Task& task, const ParamMap& schedule,
                                          const IntrinsicInfo& intrinsic);

}  // namespace ucmoh::x86
