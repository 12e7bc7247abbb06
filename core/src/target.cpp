#include "ucmoh/target.h"

namespace ucmoh {

int TypeBits(const std::string& type) {
  if (type == "f64") return 64;
  if (type == "f32" || type == "s32" || type == "u32") return 32;
  if (type == "f16" || type == "bf16" || type == "s16") return 16;
  if (type == "s8" || type == "u8" || type == "u8s8") return 8;
  if (type == "s4" || type == "u4") return 4;
  return 0;
}

bool TypeIsInteger(const std::string& type) {
  return !type.empty() && (type[0] == 's' || type[0] == 'u');
}

}  // namespace ucmoh
