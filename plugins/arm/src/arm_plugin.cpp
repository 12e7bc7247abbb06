#include "ucmoh/arm/arm_plugin.h"

#include "ucmoh/arm/graviton2.h"

namespace ucmoh::arm {

namespace {

TargetInfo ArmTarget() {
  TargetInfo target;
  target.name = "arm";
  target.description = "Arm Neoverse N1 CPU (AWS Graviton2), fixed published parameters";
  target.hardware = Graviton2Hardware();
  return target;
}

}  // namespace

ArmPlugin::ArmPlugin() : CpuGemmPlugin(ArmTarget(), ArmIntrinsics()) {}

}  // namespace ucmoh::arm
