// What any Linux host says about its CPUs, whatever the architecture: the
// cores this process may use and cpu0's cache sizes. A target's own host
// reading (x86 cpuinfo flags, arm Features) builds on these.
#pragma once

#include <cstdint>
#include <string>

namespace ucmoh::cpu_gemm {

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

// A whole small file (/proc or /sys), or "" when it cannot be read.
std::string ReadTextFile(const std::string& path);

}  // namespace ucmoh::cpu_gemm
