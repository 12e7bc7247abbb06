#include "ucmoh/cpu_gemm/measure_provenance.h"

#include <ctime>

namespace ucmoh::cpu_gemm {

#ifndef UCMOH_CXX_FLAGS
#define UCMOH_CXX_FLAGS "unknown"
#endif

std::string CompilerDescription() {
#if defined(__clang__)
  return std::string("clang ") + __clang_version__;
#elif defined(__GNUC__)
  return std::string("gcc ") + __VERSION__;
#else
  return "unknown";
#endif
}

std::string CompileFlags() { return UCMOH_CXX_FLAGS; }

std::string IsoDateUtc() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

Provenance MeasuredProvenance(const std::string& target, const HardwareParams& hardware,
                              const std::string& kernel_target, int64_t threads, const std::vector<int>& cpus) {
  std::string flags, cpu_list;
  for (const std::string& flag : hardware.flags) flags += (flags.empty() ? "" : " ") + flag;
  for (int64_t t = 0; t < threads && !cpus.empty(); ++t) {
    cpu_list += (cpu_list.empty() ? "" : ",") + std::to_string(cpus[static_cast<size_t>(t) % cpus.size()]);
  }
  Provenance p;
  p.kind = "measured";
  p.source = target + " host: " + hardware.model;
  p.details["cpu_model"] = hardware.model;
  p.details["cpu_flags"] = flags;
  p.details["cores_available"] = static_cast<int64_t>(hardware.cores);
  p.details["cores_used"] = threads;
  p.details["cpus_pinned"] = cpu_list;
  p.details["compiler"] = CompilerDescription();
  p.details["compile_flags"] = CompileFlags();
  p.details["kernel_target"] = kernel_target;
  p.details["date"] = IsoDateUtc();
  return p;
}

}  // namespace ucmoh::cpu_gemm
