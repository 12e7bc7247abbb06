// The fixed hardware of the "arm" target: an AWS Graviton2 (Arm Neoverse N1).
// These are published numbers, not read from a host. The arm plugin uses them
// to lower and featurize programs; it has no kernels, no measurer and no data
// yet. Sources, per field, in graviton2.cpp and docs/cpu-gemm.md.
#pragma once

#include "ucmoh/target.h"

namespace ucmoh::arm {

HardwareParams Graviton2Hardware();

}  // namespace ucmoh::arm
