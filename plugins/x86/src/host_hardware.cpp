#include <algorithm>
#include <cstdlib>
#include <regex>

#include "ucmoh/x86/host_hardware.h"

#include "ucmoh/cpu_gemm/host_cpu.h"
#include "ucmoh/x86/x86_intrinsics.h"

namespace ucmoh::x86 {

namespace {

// Without /proc/cpuinfo (not Linux), ask the CPU through the compiler for the
// flags CanMeasure needs, spelled as Linux spells them.
std::vector<std::string> FlagsFromCpuid() {
  std::vector<std::string> flags;
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2")) flags.push_back("avx2");
  if (__builtin_cpu_supports("fma")) flags.push_back("fma");
  if (__builtin_cpu_supports("avx512f")) flags.push_back("avx512f");
  if (__builtin_cpu_supports("avx512vnni")) flags.push_back("avx512_vnni");
  if (__builtin_cpu_supports("avx512bf16")) flags.push_back("avx512_bf16");
#endif
  return flags;
}

}  // namespace

bool HasFlag(const HardwareParams& hardware, const std::string& flag) {
  return std::find(hardware.flags.begin(), hardware.flags.end(), flag) != hardware.flags.end();
}

double NominalClockGhz(const std::string& model, const std::string& base_frequency_khz) {
  static const std::regex kAtGhz(R"(@\s*([0-9]+(\.[0-9]+)?)\s*GHz)");
  std::smatch match;
  if (std::regex_search(model, match, kAtGhz)) return std::strtod(match[1].str().c_str(), nullptr);
  const double khz = std::strtod(base_frequency_khz.c_str(), nullptr);
  return khz > 0 ? khz / 1e6 : 0.0;
}

HardwareParams RecordedHardware(const HardwareParams& host) {
  std::vector<std::string> isa;
  for (const cpu_gemm::CpuGemmIntrinsic& intrinsic : X86Intrinsics())
    for (const auto& alternatives : RequiredCpuFlags(intrinsic.info.name))
      isa.insert(isa.end(), alternatives.begin(), alternatives.end());
  HardwareParams recorded = host;
  recorded.flags.clear();
  for (const std::string& flag : host.flags)
    if (std::find(isa.begin(), isa.end(), flag) != isa.end() && !HasFlag(recorded, flag))
      recorded.flags.push_back(flag);
  return recorded;
}

HardwareParams ReadHostHardware() {
  const CpuinfoFields cpuinfo = ParseCpuinfo(cpu_gemm::ReadTextFile("/proc/cpuinfo"));
  const cpu_gemm::CacheSizes caches = cpu_gemm::ReadHostCaches();
  HardwareParams hw;
  hw.model = cpuinfo.model.empty() ? "unknown x86-64 CPU" : cpuinfo.model;
  hw.flags = cpuinfo.flags.empty() ? FlagsFromCpuid() : cpuinfo.flags;
  hw.is_gpu = false;
  hw.cores = static_cast<double>(cpu_gemm::HostCores());
  const bool avx512 = HasFlag(hw, "avx512f");
  hw.vector_bytes = avx512 ? 64 : HasFlag(hw, "avx2") || HasFlag(hw, "avx") ? 32 : 16;
  hw.vector_registers = avx512 ? 32 : 16;
  hw.cache_line_bytes = caches.line_bytes > 0 ? caches.line_bytes : 64;
  hw.l1_bytes = caches.l1d_bytes;
  hw.l2_bytes = caches.l2_bytes;
  hw.l3_bytes = caches.l3_bytes;
  hw.clock_ghz = NominalClockGhz(hw.model, cpu_gemm::ReadTextFile("/sys/devices/system/cpu/cpu0/cpufreq/base_frequency"));
  return hw;
}

}  // namespace ucmoh::x86
