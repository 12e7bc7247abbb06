// Which convolution pass a CUTLASS conv2d kernel computes: the forward pass
// (fprop), the data gradient (dgrad: dx from dy and the filter) or the weight
// gradient (wgrad: dw from dy and x). Named as CUTLASS's ConvKindNames.
#pragma once

#include <string>

#include "ucmoh/status.h"

namespace ucmoh::tensorcore {

enum class ConvKind { kFprop, kDgrad, kWgrad };

// "fprop", "dgrad", "wgrad".
const char* ConvKindName(ConvKind kind);

// The inverse of ConvKindName; anything else (CUTLASS's "deconv", a typo)
// is InvalidArgument naming the three kinds.
Expected<ConvKind> ParseConvKind(const std::string& name);

}  // namespace ucmoh::tensorcore
