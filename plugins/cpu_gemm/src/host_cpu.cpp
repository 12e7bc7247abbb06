#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <sstream>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "ucmoh/cpu_gemm/host_cpu.h"

namespace ucmoh::cpu_gemm {

namespace {

std::string ReadFirstLine(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

#ifdef _SC_LEVEL1_DCACHE_SIZE
double SysconfOrZero(int name) {
  const long value = sysconf(name);
  return value > 0 ? static_cast<double>(value) : 0.0;
}
#endif

void ReadSysfsCaches(CacheSizes& sizes) {
  const std::filesystem::path root = "/sys/devices/system/cpu/cpu0/cache";
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(root, error)) {
    if (entry.path().filename().string().rfind("index", 0) != 0) continue;
    const std::string level = ReadFirstLine(entry.path() / "level");
    const std::string type = ReadFirstLine(entry.path() / "type");
    const double bytes = ParseCacheSize(ReadFirstLine(entry.path() / "size"));
    if (type == "Instruction") continue;
    if (level == "1") sizes.l1d_bytes = bytes;
    if (level == "2") sizes.l2_bytes = bytes;
    if (level == "3") sizes.l3_bytes = bytes;
    if (level == "1" && sizes.line_bytes == 0) {
      sizes.line_bytes = std::strtod(ReadFirstLine(entry.path() / "coherency_line_size").c_str(), nullptr);
    }
  }
}

}  // namespace

double ParseCacheSize(const std::string& text) {
  char* end = nullptr;
  const double number = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || number <= 0) return 0;
  switch (*end) {
    case 'K': return number * 1024;
    case 'M': return number * 1024 * 1024;
    case 'G': return number * 1024 * 1024 * 1024;
    default: return number;
  }
}

int64_t HostCores() {
  cpu_set_t mask;
  CPU_ZERO(&mask);
  if (sched_getaffinity(0, sizeof(mask), &mask) == 0) {
    return std::max(1, CPU_COUNT(&mask));
  }
  return std::max<long>(1, sysconf(_SC_NPROCESSORS_ONLN));
}

std::string ReadTextFile(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

CacheSizes ReadHostCaches() {
  CacheSizes sizes;
  ReadSysfsCaches(sizes);
#ifdef _SC_LEVEL1_DCACHE_SIZE
  if (sizes.l1d_bytes == 0) sizes.l1d_bytes = SysconfOrZero(_SC_LEVEL1_DCACHE_SIZE);
  if (sizes.l2_bytes == 0) sizes.l2_bytes = SysconfOrZero(_SC_LEVEL2_CACHE_SIZE);
  if (sizes.l3_bytes == 0) sizes.l3_bytes = SysconfOrZero(_SC_LEVEL3_CACHE_SIZE);
  if (sizes.line_bytes == 0) sizes.line_bytes = SysconfOrZero(_SC_LEVEL1_DCACHE_LINESIZE);
#endif
  return sizes;
}

}  // namespace ucmoh::cpu_gemm
