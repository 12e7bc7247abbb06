// The fixed hardware of the "arm" target: an AWS Graviton2 (Arm Neoverse N1).
// These are published numbers, not read from a host: ARM data is generated
// off-target (cross-compiled, checked under qemu) until an aarch64 host
// measures it. Sources, per field, in graviton2.cpp and docs/cpu-gemm.md.
#pragma once

#include "ucmoh/target.h"

namespace ucmoh::arm {

HardwareParams Graviton2Hardware();

}  // namespace ucmoh::arm
