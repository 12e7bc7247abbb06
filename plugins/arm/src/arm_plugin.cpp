#include "ucmoh/arm/arm_plugin.h"

#include <utility>

#include "ucmoh/arm/arm_host.h"
#include "ucmoh/arm/arm_kernels.h"
#include "ucmoh/arm/graviton2.h"

namespace ucmoh::arm {

namespace {

HardwareParams DefaultHardware() { return OnNativeArmHost() ? ReadArmHostHardware() : Graviton2Hardware(); }

}  // namespace

TargetInfo ArmTarget(const HardwareParams& hardware) {
  TargetInfo target;
  target.name = "arm";
  target.description = OnNativeArmHost()
                           ? "this aarch64 host, read when the plugin loads (what new measurements record)"
                           : "Arm Neoverse N1 CPU (AWS Graviton2), fixed published parameters; measured "
                             "over ssh on aarch64 hosts";
  target.hardware = hardware;
  return target;
}

cpu_gemm::CpuGemmPlugin ArmGemmTarget(const HardwareParams& hardware) {
  return cpu_gemm::CpuGemmPlugin(ArmTarget(hardware), ArmIntrinsics());
}

ArmPlugin::ArmPlugin() : ArmPlugin(DefaultHardware()) {}

ArmPlugin::ArmPlugin(HardwareParams hardware)
    : CpuGemmPlugin(ArmTarget(hardware), ArmIntrinsics()), measurer_(*this, std::move(hardware), ArmKernels()) {}

Status ArmPlugin::CanMeasure(const std::string& intrinsic) const {
  if (!FindIntrinsic(intrinsic)) return UnknownIntrinsic(intrinsic);
  if (!OnNativeArmHost() || !HasArmKernels()) {
    return Status::Unsupported("arm cannot measure " + intrinsic +
                               " here: this is not an aarch64 host; measure on one over ssh with "
                               "`registry measure " + intrinsic + " --host USER@HOST` (docs/arm.md)");
  }
  return measurer_.CanRun(intrinsic);
}

Expected<Record> ArmPlugin::Measure(const Task& task, const std::string& intrinsic, const ParamMap& schedule,
                                    const MeasureOptions& options) const {
  UCMOH_RETURN_IF_ERROR(CanMeasure(intrinsic));
  return measurer_.Measure(task, intrinsic, schedule, options);
}

}  // namespace ucmoh::arm
