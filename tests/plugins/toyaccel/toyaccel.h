// toyaccel: a vendor's target plugin, written only against the public
// headers (ucmoh/plugin.h and what it includes). It describes a small int8
// accelerator: a 16x16 weight-stationary systolic array fed by a DMA engine
// from a 256 KiB on-chip scratchpad. The test suite builds it to prove a new
// target needs no change in core; docs/plugin-abi.md walks through it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ucmoh/plugin.h"

namespace toyaccel {

constexpr const char* kTarget = "toyaccel";
constexpr const char* kMac = "toyaccel.mac16x16";
constexpr int64_t kArray = 16;                      // PEs per side; one call is 16x16x16
constexpr int64_t kScratchpadBytes = 256 * 1024;    // A, B (double-buffered or not) and C banks
constexpr int64_t kBurstBytes = 64;                 // one DMA burst
constexpr int64_t kAccumBytes = 4;                  // s32 accumulators

struct Gemm {
  int64_t m = 0, n = 0, k = 0;
};

// Tiles are what one scratchpad fill holds; all are multiples of kArray.
struct Schedule {
  int64_t tile_m = kArray, tile_n = kArray, tile_k = kArray;
  bool double_buffer = false;   // DMA of the next k tile overlaps compute
  bool n_outer_first = false;   // loop order: n tiles outermost (keeps B tiles hot)
};

// Workload keys: op "gemm", ints m, n, k (C[m,n] += A[m,k] * B[k,n], s8 -> s32).
ucmoh::Expected<Gemm> ParseGemm(const ucmoh::Task& task);
// Schedule keys: tile_m, tile_n, tile_k, double_buffer (0/1), order ("mn"/"nm").
ucmoh::Expected<Schedule> ParseSchedule(const ucmoh::ParamMap& params);
ucmoh::ParamMap ToParams(const Schedule& schedule);
int64_t ScratchpadBytes(const Schedule& schedule);

// Programs given as ASTs (docs/ast-json.md): the named inputs toyaccel's
// template values are computed from, and one stage's values from them.
std::vector<std::string> TemplateInputNames();
ucmoh::Expected<ucmoh::TemplateValues> StageTemplateValues(const ucmoh::TemplateInputs& inputs,
                                                           const ucmoh::Stage& stage);

class ToyAccelPlugin : public ucmoh::TargetPlugin {
 public:
  ucmoh::TargetInfo Target() const override;
  std::vector<ucmoh::IntrinsicInfo> Intrinsics() const override;
  std::vector<std::string> TemplateDimNames() const override;
  ucmoh::Expected<ucmoh::ProgramAst> Lower(const ucmoh::Task& task, const std::string& intrinsic,
                                           const ucmoh::ParamMap& schedule,
                                           const ucmoh::HardwareParams& hardware) const override;
  std::vector<std::string> TemplateInputNames() const override { return toyaccel::TemplateInputNames(); }
  ucmoh::Expected<ucmoh::TemplateValues> StageTemplate(const std::string& intrinsic,
                                                       const ucmoh::TemplateInputs& inputs,
                                                       const ucmoh::Stage& stage,
                                                       const ucmoh::HardwareParams& hardware) const override;
  std::vector<std::string> TaskSuites() const override;
  ucmoh::Expected<std::vector<ucmoh::Task>> Tasks(const std::string& suite,
                                                  const std::string& intrinsic) const override;
  ucmoh::Expected<std::vector<ucmoh::ParamMap>> SampleSchedules(const ucmoh::Task& task,
                                                                const std::string& intrinsic,
                                                                int64_t count,
                                                                uint64_t seed) const override;
};

}  // namespace toyaccel
