#include "ucmoh/x86/autotvm_hardware.h"

#include <sstream>
#include <vector>

namespace ucmoh::x86 {

namespace {

struct KnownCpu {
  const char* model_option;  // the target's -model=
  const char* mcpu;          // the target's -mcpu= it must agree with
  AutoTvmMachine machine;
};

// Intel Xeon Platinum 8124M (Skylake-SP): 18 cores at 3.0 GHz base, AVX-512
// with 32 zmm registers, 32 KiB L1d and 1 MiB L2 per core, 24.75 MiB L3
// (Intel ARK). TLCBench's logs ran on one socket (AWS c5.9xlarge, 18 cores).
AutoTvmMachine Platinum8124M() {
  AutoTvmMachine m;
  HardwareParams& h = m.hardware;
  h.model = "Intel(R) Xeon(R) Platinum 8124M CPU @ 3.00GHz";
  h.cores = 18;
  h.vector_bytes = 64;
  h.vector_registers = 32;
  h.cache_line_bytes = 64;
  h.l1_bytes = 32 * 1024;
  h.l2_bytes = 1024 * 1024;
  h.l3_bytes = 24.75 * 1024 * 1024;
  h.clock_ghz = 3.0;
  h.flags = {"fma", "avx2", "avx512f"};
  m.threads = 18;
  m.instance = "AWS c5.9xlarge";
  return m;
}

const std::vector<KnownCpu>& KnownCpus() {
  static const std::vector<KnownCpu> known = {{"platinum-8124m", "skylake-avx512", Platinum8124M()}};
  return known;
}

// The value of "-name=value" in a target string, or "".
std::string Option(const std::string& target, const std::string& name) {
  std::istringstream words(target);
  std::string word;
  while (words >> word)
    if (word.rfind("-" + name + "=", 0) == 0) return word.substr(name.size() + 2);
  return "";
}

}  // namespace

Expected<AutoTvmMachine> AutoTvmMachineOf(const std::string& target) {
  if (target.rfind("llvm", 0) != 0)
    return Status::Unsupported("target '" + target + "' is not an llvm (CPU) target");
  const std::string model = Option(target, "model");
  const std::string mcpu = Option(target, "mcpu");
  std::string known;
  for (const KnownCpu& cpu : KnownCpus()) {
    if (model == cpu.model_option) {
      if (!mcpu.empty() && mcpu != cpu.mcpu)
        return Status::InvalidArgument("target '" + target + "': -model=" + model + " is a " + cpu.mcpu +
                                       " CPU, not -mcpu=" + mcpu);
      return cpu.machine;
    }
    known += (known.empty() ? "" : ", ") + std::string(cpu.model_option);
  }
  return Status::Unsupported("target '" + target + "' names no known CPU (-model=" + (model.empty() ? "?" : model) +
                             "; known: " + known + "); docs/records.md says how to add one");
}

}  // namespace ucmoh::x86
