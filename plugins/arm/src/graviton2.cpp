#include "ucmoh/arm/graviton2.h"

namespace ucmoh::arm {

namespace {
constexpr double kKiB = 1024;
constexpr double kMiB = 1024 * 1024;
}  // namespace

HardwareParams Graviton2Hardware() {
  HardwareParams hw;
  hw.model = "AWS Graviton2 (Arm Neoverse N1)";
  hw.is_gpu = false;
  // AWS, "AWS Graviton2" (aws-graviton-getting-started, c6g/m6g/r6g): 64 physical
  // Neoverse N1 cores at 2.5 GHz, 64 KiB L1 I and D per core, 1 MiB L2 per core,
  // 32 MiB shared last-level (system-level) cache.
  hw.cores = 64;
  hw.clock_ghz = 2.5;
  hw.l1_bytes = 64 * kKiB;
  hw.l2_bytes = 1 * kMiB;
  hw.l3_bytes = 32 * kMiB;
  // Arm Neoverse N1 Technical Reference Manual: Armv8.2-A, 32 x 128-bit
  // SIMD&FP registers (v0-v31), 64-byte cache lines.
  hw.vector_bytes = 16;
  hw.vector_registers = 32;
  hw.cache_line_bytes = 64;
  // The "Features" line of /proc/cpuinfo on a Graviton2 (c6g) instance;
  // asimddp is the SDOT/UDOT dot-product extension.
  hw.flags = {"fp",    "asimd", "evtstrm", "aes",     "pmull", "sha1",    "sha2",   "crc32",
              "atomics", "fphp", "asimdhp", "cpuid", "asimdrdm", "lrcpc", "dcpop", "asimddp",
              "ssbs"};
  return hw;
}

}  // namespace ucmoh::arm
