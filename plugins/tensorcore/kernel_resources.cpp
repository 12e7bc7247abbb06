#include "kernel_resources.h"

#include <algorithm>

#include "hardware.h"

namespace ucmoh::tensorcore {

namespace {

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Accumulators of the warp tile, plus double-buffered A and B fragments of one
// instruction-k step, spread over the 32 lanes, plus a fixed allowance for
// addresses, predicates and loop state.
int64_t EstimateRegisters(const KernelConfig& c, const TensorCoreIntrinsic& intrinsic) {
  constexpr int64_t kBitsPerRegister = 32;
  constexpr int64_t kBookkeepingRegisters = 40;
  const int64_t lane_bits = kWarpSize * kBitsPerRegister;
  const int64_t accum = CeilDiv(c.warp_m() * c.warp_n() * TypeBits(intrinsic.info.accum_type), lane_bits);
  const int64_t fragments = 2 * CeilDiv((c.warp_m() + c.warp_n()) * intrinsic.info.k *
                                            TypeBits(intrinsic.info.input_type),
                                        lane_bits);
  return CeilDiv(accum + fragments + kBookkeepingRegisters, 8) * 8;
}

}  // namespace

int64_t ResidentBlocks(int64_t threads, int64_t shared_bytes, int64_t registers_per_thread,
                       const GpuArchitecture& arch) {
  const int64_t by_threads = arch.max_threads_per_sm / threads;
  const int64_t by_shared = arch.shared_bytes_per_sm / (shared_bytes + arch.shared_reserved_per_block);
  const int64_t by_registers = arch.registers_per_sm / (threads * registers_per_thread);
  return std::min({arch.max_blocks_per_sm, by_threads, by_shared, by_registers});
}

KernelResources EstimateResources(const KernelConfig& c, const TensorCoreIntrinsic& intrinsic,
                                  const GpuArchitecture& arch) {
  KernelResources res;
  res.threads = c.warps() * kWarpSize;
  res.shared_bytes = c.stages * (c.cta_m + c.cta_n) * c.cta_k * intrinsic.InputBytes();
  res.registers_per_thread = EstimateRegisters(c, intrinsic);
  res.resident_blocks = ResidentBlocks(res.threads, res.shared_bytes, res.registers_per_thread, arch);
  return res;
}

}  // namespace ucmoh::tensorcore
