#include "ucmoh/hardware_json.h"

#include <cmath>
#include <utility>
#include <vector>

namespace ucmoh {

namespace {

using nlohmann::json;

using NumericField = std::pair<const char*, double HardwareParams::*>;

// The numeric fields by their JSON names, in the order they are written
// (built once: every record read goes through this list).
const std::vector<NumericField>& NumericFields() {
  static const std::vector<NumericField> kFields = {{"cores", &HardwareParams::cores},
          {"vector_bytes", &HardwareParams::vector_bytes},
          {"vector_registers", &HardwareParams::vector_registers},
          {"cache_line_bytes", &HardwareParams::cache_line_bytes},
          {"l1_bytes", &HardwareParams::l1_bytes},
          {"l2_bytes", &HardwareParams::l2_bytes},
          {"l3_bytes", &HardwareParams::l3_bytes},
          {"warp_size", &HardwareParams::warp_size},
          {"max_threads_per_block", &HardwareParams::max_threads_per_block},
          {"shared_bytes_per_block", &HardwareParams::shared_bytes_per_block},
          {"registers_per_sm", &HardwareParams::registers_per_sm},
          {"clock_ghz", &HardwareParams::clock_ghz}};
  return kFields;
}

Status ReadFlags(const json& j, HardwareParams& hw) {
  auto flags = j.find("flags");
  if (flags == j.end()) return Status::Ok();
  if (!flags->is_array()) return Status::InvalidArgument("'hardware.flags' must be an array of strings");
  for (const json& flag : *flags) {
    if (!flag.is_string()) return Status::InvalidArgument("'hardware.flags' must be an array of strings");
    hw.flags.push_back(flag.get<std::string>());
  }
  return Status::Ok();
}

}  // namespace

json HardwareToJson(const HardwareParams& hw) {
  json out = {{"model", hw.model}, {"is_gpu", hw.is_gpu}, {"flags", hw.flags}};
  for (const auto& [name, field] : NumericFields())
    if (hw.*field != 0) out[name] = hw.*field;
  return out;
}

Expected<HardwareParams> HardwareFromJson(const json& j) {
  if (!j.is_object()) return Status::InvalidArgument("'hardware' must be an object");
  HardwareParams hw;
  auto model = j.find("model");
  if (model == j.end() || !model->is_string() || model->get<std::string>().empty())
    return Status::InvalidArgument("'hardware.model' must be a non-empty string");
  hw.model = model->get<std::string>();
  auto is_gpu = j.find("is_gpu");
  if (is_gpu == j.end() || !is_gpu->is_boolean())
    return Status::InvalidArgument("'hardware.is_gpu' must be true or false");
  hw.is_gpu = is_gpu->get<bool>();
  for (const auto& [name, field] : NumericFields()) {
    auto value = j.find(name);
    if (value == j.end()) continue;
    if (!value->is_number() || !std::isfinite(value->get<double>()) || value->get<double>() < 0)
      return Status::InvalidArgument(std::string("'hardware.") + name + "' must be a finite number >= 0");
    hw.*field = value->get<double>();
  }
  UCMOH_RETURN_IF_ERROR(ReadFlags(j, hw));
  return hw;
}

}  // namespace ucmoh
