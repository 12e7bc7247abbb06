// The hardware of the aarch64 host the arm target measures on, read from
// /proc/cpuinfo ("Features", "CPU implementer", "CPU part"), the affinity
// mask and sysfs caches, and whether this "aarch64 host" is really one or a
// user-mode emulator (qemu-aarch64) on another CPU, where programs run
// correctly but no latency means anything.
#pragma once

#include <string>
#include <vector>

#include "ucmoh/target.h"

namespace ucmoh::arm {

// The first processor block of an aarch64 /proc/cpuinfo.
struct ArmCpuinfo {
  int implementer = -1;               // "CPU implementer" (0x41: Arm Ltd), -1 when absent
  int part = -1;                      // "CPU part" (0xd0c: Neoverse N1)
  std::vector<std::string> features;  // "Features", in file order
};
ArmCpuinfo ParseArmCpuinfo(const std::string& text);

// "Arm Neoverse N1" for (0x41, 0xd0c); a generic name with the numbers for
// a core this table does not know.
std::string ArmCoreName(int implementer, int part);

// Whether the cpuinfo text is what an aarch64 Linux kernel writes. Under
// qemu-user the process reads the real host's /proc/cpuinfo (x86's "flags",
// no "CPU implementer"), so an aarch64 build that reads anything else is
// being emulated.
bool IsNativeArmCpuinfo(const std::string& text);

// The hardware a record measured on this host carries: model, cores in the
// affinity mask, caches, 16-byte vectors and 32 registers, and of the
// Features only those the arm intrinsics need (asimd, asimddp).
HardwareParams ArmHardwareFrom(const std::string& cpuinfo_text);

// This process's host, read now: /proc/cpuinfo and sysfs.
HardwareParams ReadArmHostHardware();

// True only in an aarch64 build on a real aarch64 kernel: the only place the
// arm kernels may be timed.
bool OnNativeArmHost();

}  // namespace ucmoh::arm
