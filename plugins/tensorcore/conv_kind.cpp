#include "conv_kind.h"

namespace ucmoh::tensorcore {

const char* ConvKindName(ConvKind kind) {
  switch (kind) {
    case ConvKind::kFprop: return "fprop";
    case ConvKind::kDgrad: return "dgrad";
    case ConvKind::kWgrad: return "wgrad";
  }
  return "fprop";
}

Expected<ConvKind> ParseConvKind(const std::string& name) {
  for (ConvKind kind : {ConvKind::kFprop, ConvKind::kDgrad, ConvKind::kWgrad})
    if (name == ConvKindName(kind)) return kind;
  return Status::InvalidArgument("conv kind '" + name + "' is not supported (fprop, dgrad or wgrad)");
}

}  // namespace ucmoh::tensorcore
