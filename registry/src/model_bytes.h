// A model's saved bytes (the weights blob), shared by add-intrinsic and the tests' helpers.
#pragma once

#include <string>

#include "ucmoh/cost_model.h"

namespace ucmoh::registry {

Expected<std::string> SerializeModelBytes(const CostModel& model);

}  // namespace ucmoh::registry
