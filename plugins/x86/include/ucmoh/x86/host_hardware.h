// The hardware of the machine the x86 plugin runs on, read when the plugin is
// created: /proc/cpuinfo (model, flags), sched_getaffinity (cores this
// process may use), /sys/devices/system/cpu/cpu0/cache (cache sizes and line),
// with sysconf(_SC_LEVEL*) where sysfs is missing, and the nominal clock.
// This is only what new measurements record: a record's tokens come from the
// hardware it carries, never from this reading.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ucmoh/target.h"

namespace ucmoh::x86 {

// The first processor block of a /proc/cpuinfo text.
struct CpuinfoFields {
  std::string model;               // "model name"
  std::vector<std::string> flags;  // "flags", in file order
  double mhz = 0;                  // "cpu MHz": the momentary clock, never recorded
};
CpuinfoFields ParseCpuinfo(const std::string& text);

// The nominal (base) clock in GHz: the "@ 2.10GHz" of the model name, else
// cpufreq's base_frequency (kHz text), else 0 (unknown). Never "cpu MHz",
// which moves with frequency scaling.
double NominalClockGhz(const std::string& model, const std::string& base_frequency_khz);

HardwareParams ReadHostHardware();

// What a measured record says about this host (and the x86 target's
// hardware): `host` with its flags cut to the ISA extensions the x86
// intrinsics need (in host order), so records stay small and two hosts that
// differ only in unrelated flags describe alike.
HardwareParams RecordedHardware(const HardwareParams& host);

bool HasFlag(const HardwareParams& hardware, const std::string& flag);

}  // namespace ucmoh::x86
