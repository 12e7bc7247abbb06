#include "ucmoh/x86/x86_plugin.h"

#include <utility>

#include "ucmoh/x86/host_hardware.h"
#include "ucmoh/x86/x86_intrinsics.h"

namespace ucmoh::x86 {

namespace {

TargetInfo X86Target(HardwareParams hardware) {
  TargetInfo target;
  target.name = "x86";
  target.description = "the x86-64 host CPU, read when the plugin loads";
  target.hardware = std::move(hardware);
  return target;
}

}  // namespace

X86Plugin::X86Plugin() : X86Plugin(ReadHostHardware()) {}

X86Plugin::X86Plugin(HardwareParams hardware)
    : CpuGemmPlugin(X86Target(std::move(hardware)), X86Intrinsics()) {}

Status X86Plugin::CanMeasure(const std::string& intrinsic) const {
  if (!FindIntrinsic(intrinsic)) return UnknownIntrinsic(intrinsic);
  const HardwareParams hardware = Target().hardware;
  for (const std::vector<std::string>& alternatives : RequiredCpuFlags(intrinsic)) {
    bool present = false;
    for (const std::string& flag : alternatives) present = present || HasFlag(hardware, flag);
    if (!present) {
      return Status::Unsupported("x86 cannot measure " + intrinsic + ": this CPU (" + hardware.model +
                                 ") lacks the '" + alternatives.front() + "' flag");
    }
  }
  return Status::Ok();
}

Expected<Record> X86Plugin::Measure(const Task& task, const std::string& intrinsic,
                                    const ParamMap& schedule, const MeasureOptions& options) const {
  UCMOH_RETURN_IF_ERROR(CanMeasure(intrinsic));
  return Status::Unsupported("x86 measurement of " + intrinsic + " is not implemented yet (task " +
                             task.key + ")");
}

}  // namespace ucmoh::x86
