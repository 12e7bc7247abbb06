#include "kernel_config.h"

#include <vector>

#include "operation_name.h"

namespace ucmoh::tensorcore {

namespace {

struct IntKey {
  const char* key;
  int64_t KernelConfig::*member;
};

const std::vector<IntKey>& IntKeys() {
  static const std::vector<IntKey> kKeys = {
      {"cta_m", &KernelConfig::cta_m},       {"cta_n", &KernelConfig::cta_n},
      {"cta_k", &KernelConfig::cta_k},       {"stages", &KernelConfig::stages},
      {"warps_m", &KernelConfig::warps_m},   {"warps_n", &KernelConfig::warps_n},
      {"warps_k", &KernelConfig::warps_k},   {"alignment", &KernelConfig::alignment},
      {"split_k_slices", &KernelConfig::split_k_slices},
  };
  return kKeys;
}

}  // namespace

Expected<KernelConfig> ParseKernelConfig(const ParamMap& schedule) {
  KernelConfig config;
  for (const IntKey& key : IntKeys()) {
    auto value = GetInt(schedule, key.key);
    if (!value.ok()) return value.status();
    if (!KernelValueInRange(*value))
      return Status::InvalidArgument("schedule " + std::string(key.key) + "=" + std::to_string(*value) +
                                     " must be in [1, " + std::to_string(kMaxKernelValue) + "]");
    config.*key.member = *value;
  }
  auto iterator = GetString(schedule, "iterator");
  if (!iterator.ok()) return iterator.status();
  if (*iterator != "optimized" && *iterator != "analytic")
    return Status::InvalidArgument("schedule iterator '" + *iterator +
                                   "' must be 'optimized' or 'analytic'");
  config.optimized_iterator = *iterator == "optimized";
  if (schedule.count("layout")) {
    auto layout = GetString(schedule, "layout");
    if (!layout.ok()) return layout.status();
    if (*layout != "nhwc")
      return Status::InvalidArgument("schedule layout '" + *layout + "' is not supported (only nhwc)");
    config.layout = *layout;
  }
  return config;
}

ParamMap ScheduleParams(const KernelConfig& config, const TensorCoreIntrinsic& intrinsic, ConvKind kind) {
  ParamMap schedule;
  for (const IntKey& key : IntKeys()) schedule[key.key] = config.*key.member;
  schedule["iterator"] = config.iterator();
  schedule["layout"] = config.layout;
  schedule["operation"] = FormatOperationName(config, intrinsic, kind);
  return schedule;
}

}  // namespace ucmoh::tensorcore
