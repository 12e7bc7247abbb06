// HardwareParams as JSON: the "hardware" object of a record (docs/records.md)
// and of `registry plugins --json`. The one place that knows its keys.
#pragma once

#include <nlohmann/json.hpp>

#include "ucmoh/status.h"
#include "ucmoh/target.h"

namespace ucmoh {

// Every numeric field that is not 0 (0 = not applicable or unknown), plus
// "model", "is_gpu" and "flags" always.
nlohmann::json HardwareToJson(const HardwareParams& hardware);

// Reads what HardwareToJson writes; "model" and "is_gpu" are required, numbers
// must be finite and >= 0, flags strings. Errors name the key ("hardware.l2_bytes").
Expected<HardwareParams> HardwareFromJson(const nlohmann::json& j);

}  // namespace ucmoh
