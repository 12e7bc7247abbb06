// ParamMap as a JSON object (a record's schedule and workload, a version's
// hyper-parameters in a pulled model): ints, reals and strings as they are.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "ucmoh/params.h"
#include "ucmoh/status.h"

namespace ucmoh {

nlohmann::json ParamsToJson(const ParamMap& params);

// Booleans read as 0/1; anything else but numbers and strings is an error
// naming `field` ("schedule.tile_m").
Expected<ParamMap> ParamsFromJson(const nlohmann::json& j, const std::string& field);

}  // namespace ucmoh
