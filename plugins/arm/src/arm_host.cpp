#include "ucmoh/arm/arm_host.h"

#include <algorithm>
#include <cstdlib>
#include <sstream>

#include "ucmoh/cpu_gemm/host_cpu.h"

namespace ucmoh::arm {

namespace {

// "key\t: value" -> value, for the first line whose key matches.
bool FieldOf(const std::string& line, const std::string& key, std::string* value) {
  const size_t colon = line.find(':');
  if (colon == std::string::npos) return false;
  std::string name = line.substr(0, colon);
  name.erase(name.find_last_not_of(" \t") + 1);
  if (name != key) return false;
  const size_t start = line.find_first_not_of(" \t", colon + 1);
  *value = start == std::string::npos ? "" : line.substr(start);
  return true;
}

// The features the arm intrinsics need: what a record keeps of "Features".
const std::vector<std::string>& IntrinsicFeatures() {
  static const std::vector<std::string> features = {"asimd", "asimddp"};
  return features;
}

}  // namespace

ArmCpuinfo ParseArmCpuinfo(const std::string& text) {
  ArmCpuinfo info;
  std::istringstream lines(text);
  std::string line, value;
  while (std::getline(lines, line)) {
    if (line.empty() && !info.features.empty()) break;  // end of the first processor block
    if (info.implementer < 0 && FieldOf(line, "CPU implementer", &value)) {
      info.implementer = static_cast<int>(std::strtol(value.c_str(), nullptr, 0));
    } else if (info.part < 0 && FieldOf(line, "CPU part", &value)) {
      info.part = static_cast<int>(std::strtol(value.c_str(), nullptr, 0));
    } else if (info.features.empty() && FieldOf(line, "Features", &value)) {
      std::istringstream words(value);
      for (std::string word; words >> word;) info.features.push_back(word);
    }
  }
  return info;
}

std::string ArmCoreName(int implementer, int part) {
  struct Core {
    int implementer, part;
    const char* name;
  };
  // Arm's MIDR part numbers (each core's Technical Reference Manual).
  static const Core kCores[] = {
      {0x41, 0xd03, "Arm Cortex-A53"},  {0x41, 0xd05, "Arm Cortex-A55"},    {0x41, 0xd08, "Arm Cortex-A72"},
      {0x41, 0xd0b, "Arm Cortex-A76"},  {0x41, 0xd0c, "Arm Neoverse N1"},   {0x41, 0xd40, "Arm Neoverse V1"},
      {0x41, 0xd41, "Arm Cortex-A78"},  {0x41, 0xd49, "Arm Neoverse N2"},   {0x41, 0xd4f, "Arm Neoverse V2"},
      {0xc0, 0xac3, "Ampere AmpereOne"}, {0x61, 0x022, "Apple M1 Icestorm"}, {0x61, 0x023, "Apple M1 Firestorm"},
  };
  for (const Core& core : kCores) {
    if (core.implementer == implementer && core.part == part) return core.name;
  }
  char name[96];
  std::snprintf(name, sizeof(name), "aarch64 CPU (implementer 0x%02x, part 0x%03x)", implementer, part);
  return name;
}

bool IsNativeArmCpuinfo(const std::string& text) {
  const ArmCpuinfo info = ParseArmCpuinfo(text);
  return info.implementer >= 0 && !info.features.empty();
}

HardwareParams ArmHardwareFrom(const std::string& cpuinfo_text) {
  const ArmCpuinfo info = ParseArmCpuinfo(cpuinfo_text);
  const cpu_gemm::CacheSizes caches = cpu_gemm::ReadHostCaches();
  HardwareParams hw;
  hw.model = IsNativeArmCpuinfo(cpuinfo_text) ? ArmCoreName(info.implementer, info.part)
                                              : "emulated aarch64 CPU (not an aarch64 kernel's cpuinfo)";
  for (const std::string& feature : IntrinsicFeatures()) {
    if (std::find(info.features.begin(), info.features.end(), feature) != info.features.end())
      hw.flags.push_back(feature);
  }
  hw.is_gpu = false;
  hw.cores = static_cast<double>(cpu_gemm::HostCores());
  hw.vector_bytes = 16;
  hw.vector_registers = 32;
  hw.cache_line_bytes = caches.line_bytes > 0 ? caches.line_bytes : 64;
  hw.l1_bytes = caches.l1d_bytes;
  hw.l2_bytes = caches.l2_bytes;
  hw.l3_bytes = caches.l3_bytes;
  // Most aarch64 servers expose no cpufreq; the maximum is the best nominal
  // clock there is where they do, and 0 (unknown) otherwise.
  const double khz = std::strtod(
      cpu_gemm::ReadTextFile("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq").c_str(), nullptr);
  hw.clock_ghz = khz > 0 ? khz / 1e6 : 0.0;
  return hw;
}

HardwareParams ReadArmHostHardware() { return ArmHardwareFrom(cpu_gemm::ReadTextFile("/proc/cpuinfo")); }

bool OnNativeArmHost() {
#if defined(__aarch64__)
  // Read once: the arm plugin asks before every measurement.
  static const bool native = IsNativeArmCpuinfo(cpu_gemm::ReadTextFile("/proc/cpuinfo"));
  return native;
#else
  return false;
#endif
}

}  // namespace ucmoh::arm
