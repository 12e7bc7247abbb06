#include "ucmoh/params_json.h"

namespace ucmoh {

using nlohmann::json;

json ParamsToJson(const ParamMap& params) {
  json out = json::object();
  for (const auto& entry : params) {
    json& slot = out[entry.first];
    std::visit([&](const auto& v) { slot = v; }, entry.second);
  }
  return out;
}

Expected<ParamMap> ParamsFromJson(const json& j, const std::string& field) {
  if (!j.is_object()) return Status::InvalidArgument("'" + field + "' must be an object");
  ParamMap out;
  for (const auto& [key, value] : j.items()) {
    if (value.is_number_integer()) {
      out[key] = value.get<int64_t>();
    } else if (value.is_number()) {
      out[key] = value.get<double>();
    } else if (value.is_string()) {
      out[key] = value.get<std::string>();
    } else if (value.is_boolean()) {
      out[key] = static_cast<int64_t>(value.get<bool>());
    } else {
      return Status::InvalidArgument("'" + field + "." + key + "' must be a number or a string");
    }
  }
  return out;
}

}  // namespace ucmoh
