#include "gpu_architecture.h"

#include <algorithm>
#include <string>

namespace ucmoh::tensorcore {

namespace {

constexpr int64_t KiB = 1024;

GpuArchitecture Arch(int cc, const char* flag, const char* family, int64_t shared_sm_kib, int64_t shared_block_kib,
                     int64_t threads_sm, int64_t blocks_sm) {
  GpuArchitecture a;
  a.compute_capability = cc;
  a.flag = flag;
  a.family = family;
  a.shared_bytes_per_sm = shared_sm_kib * KiB;
  a.shared_bytes_per_block = shared_block_kib * KiB;
  a.shared_reserved_per_block = cc >= 80 ? 1 * KiB : 0;
  a.max_threads_per_sm = threads_sm;
  a.max_blocks_per_sm = blocks_sm;
  return a;
}

std::string KnownFlags() {
  std::string flags;
  for (const auto& a : KnownArchitectures()) flags += (flags.empty() ? "" : ", ") + std::string(a.flag);
  return flags;
}

}  // namespace

const std::vector<GpuArchitecture>& KnownArchitectures() {
  static const std::vector<GpuArchitecture> kAll = {
      //   cc  flag     family     shared/SM  /block  threads/SM  blocks/SM (KiB)
      Arch(75, "sm_75", "Turing", 64, 64, 1024, 16),
      Arch(80, "sm_80", "Ampere", 164, 163, 2048, 32),
      Arch(86, "sm_86", "Ampere", 100, 99, 1536, 16),
      Arch(89, "sm_89", "Ada", 100, 99, 1536, 24),
      Arch(90, "sm_90", "Hopper", 228, 227, 2048, 32),
  };
  return kAll;
}

const GpuArchitecture& DefaultArchitecture() { return KnownArchitectures()[2]; }

Expected<const GpuArchitecture*> ArchitectureOf(const HardwareParams& hardware) {
  if (!hardware.is_gpu)
    return Status::InvalidArgument("tensorcore models NVIDIA GPUs, not the record's hardware '" + hardware.model + "'");
  for (const std::string& flag : hardware.flags) {
    if (flag.rfind("sm_", 0) != 0) continue;
    for (const auto& a : KnownArchitectures())
      if (flag == a.flag) return &a;
    return Status::InvalidArgument("tensorcore does not know the limits of " + flag + " ('" + hardware.model +
                                   "'); it models " + KnownFlags());
  }
  return Status::InvalidArgument("the GPU '" + hardware.model + "' names no compute capability (an 'sm_XX' flag; " +
                                 "tensorcore models " + KnownFlags() + ")");
}

Status CheckIntrinsicRuns(const TensorCoreIntrinsic& intrinsic, const GpuArchitecture& arch) {
  if (arch.compute_capability >= intrinsic.min_compute_capability) return Status::Ok();
  return Status::InvalidArgument(intrinsic.info.name + " (" + intrinsic.info.instruction + ") needs sm_" +
                                 std::to_string(intrinsic.min_compute_capability) + ", which " + arch.flag + " (" +
                                 arch.family + ") is not");
}

}  // namespace ucmoh::tensorcore
