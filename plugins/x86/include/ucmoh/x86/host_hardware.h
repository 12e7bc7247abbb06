// The hardware of the machine the x86 plugin runs on, read when the plugin is
// created: /proc/cpuinfo (model, flags, clock), sched_getaffinity (cores this
// process may use), /sys/devices/system/cpu/cpu0/cache (cache sizes and line),
// with sysconf(_SC_LEVEL*) where sysfs is missing.
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
  double mhz = 0;                  // "cpu MHz"
};
CpuinfoFields ParseCpuinfo(const std::string& text);

// "48K", "2048K", "32M", "1G" or a plain byte count -> bytes; 0 when unreadable.
double ParseCacheSize(const std::string& text);

struct CacheSizes {
  double l1d_bytes = 0, l2_bytes = 0, l3_bytes = 0;
  double line_bytes = 0;
};
// cpu0's caches from sysfs, each missing level from sysconf; 0 when unknown.
CacheSizes ReadHostCaches();

// Cores this process may run on (affinity mask), at least 1.
int64_t HostCores();

HardwareParams ReadHostHardware();

bool HasFlag(const HardwareParams& hardware, const std::string& flag);

}  // namespace ucmoh::x86
