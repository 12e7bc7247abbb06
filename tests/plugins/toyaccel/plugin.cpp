// What toyaccel says about itself: the target, its one intrinsic, the meaning
// of its template dimensions and its task suite. Also the one line that
// exports the plugin (UCMOH_DEFINE_PLUGIN).
#include "toyaccel.h"

namespace toyaccel {

using ucmoh::Expected;
using ucmoh::IntrinsicInfo;
using ucmoh::Status;
using ucmoh::Task;
using ucmoh::TargetInfo;

TargetInfo ToyAccelPlugin::Target() const {
  TargetInfo info;
  info.name = kTarget;
  info.description = "ToyAccel TA-1: 16x16 int8 weight-stationary systolic array, 256 KiB scratchpad";
  ucmoh::HardwareParams& hw = info.hardware;
  hw.model = "ToyAccel TA-1 (16x16 systolic array)";
  hw.is_gpu = false;
  hw.cores = 1;                         // one array
  hw.vector_bytes = kArray;             // one int8 row enters the array per cycle
  hw.vector_registers = kArray;         // rows of stationary weights
  hw.cache_line_bytes = kBurstBytes;    // the DMA granule plays the cache line's role
  hw.l1_bytes = kScratchpadBytes;       // software-managed scratchpad
  hw.clock_ghz = 0.8;
  hw.flags = {"int8", "s32_accumulate", "dma_double_buffer"};
  return info;
}

std::vector<IntrinsicInfo> ToyAccelPlugin::Intrinsics() const {
  IntrinsicInfo mac;
  mac.name = kMac;
  mac.instruction = "tmac.16x16x16";
  mac.m = kArray;
  mac.n = kArray;
  mac.k = kArray;
  mac.input_type = "s8";
  mac.accum_type = "s32";
  mac.ops_per_call = 2.0 * kArray * kArray * kArray;
  mac.description = "streams a 16x16 s8 A block through 16x16 stationary s8 weights into s32 accumulators";
  return {mac};
}

// The eight kTemplateDims values every toyaccel stage carries (see lower.cpp).
std::vector<std::string> ToyAccelPlugin::TemplateDimNames() const {
  return {"scratchpad_fraction", "double_buffered",   "pe_utilization", "dma_bursts_log2",
          "reuse_log2",          "is_weight_operand", "n_outer_first",  "k_steps_log2"};
}

ucmoh::Expected<ucmoh::TemplateValues> ToyAccelPlugin::StageTemplate(const std::string& intrinsic,
                                                                     const ucmoh::TemplateInputs& inputs,
                                                                     const ucmoh::Stage& stage,
                                                                     const ucmoh::HardwareParams& hardware) const {
  if (intrinsic != kMac) return ucmoh::Status::NotFound("toyaccel has no intrinsic '" + intrinsic + "'");
  if (hardware.model != Target().hardware.model)
    return ucmoh::Status::InvalidArgument("toyaccel models only '" + Target().hardware.model + "'");
  return StageTemplateValues(inputs, stage);
}

std::vector<std::string> ToyAccelPlugin::TaskSuites() const { return {"tiny_bert"}; }

namespace {

Task MakeGemmTask(const std::string& suite, const std::string& layer, int64_t m, int64_t n, int64_t k) {
  Task task;
  task.op = "gemm";
  task.workload = {{"m", m}, {"n", n}, {"k", k}};
  task.key = suite + "." + layer + ".gemm.m" + std::to_string(m) + "n" + std::to_string(n) + "k" +
             std::to_string(k) + ".mac16x16";
  return task;
}

}  // namespace

// One encoder layer of a small BERT (sequence 128, hidden 256, 4x FFN).
Expected<std::vector<Task>> ToyAccelPlugin::Tasks(const std::string& suite,
                                                  const std::string& intrinsic) const {
  if (intrinsic != kMac) return Status::NotFound("toyaccel has no intrinsic '" + intrinsic + "'");
  if (suite != "tiny_bert") return Status::NotFound("toyaccel has no task suite '" + suite + "'");
  return std::vector<Task>{
      MakeGemmTask(suite, "qkv", 128, 768, 256),
      MakeGemmTask(suite, "attn_out", 128, 256, 256),
      MakeGemmTask(suite, "ffn_up", 128, 1024, 256),
      MakeGemmTask(suite, "ffn_down", 128, 256, 1024),
  };
}

}  // namespace toyaccel

#include "ucmoh/plugin_c_adapter.h"

UCMOH_DEFINE_PLUGIN(toyaccel::ToyAccelPlugin)
