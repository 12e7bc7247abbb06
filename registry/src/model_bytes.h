// A model's saved bytes (the weights blob): written by registry_ops.cpp, committed by add_intrinsic.cpp.
#pragma once

#include <string>

#include "ucmoh/cost_model.h"

namespace ucmoh::registry {

Expected<std::string> SerializeModelBytes(const CostModel& model);

}  // namespace ucmoh::registry
