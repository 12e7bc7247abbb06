#include "ucmoh/cpu_gemm/isa_profile.h"

#include <algorithm>

namespace ucmoh::cpu_gemm {

namespace {
// Conservative sizes for a machine that did not report a cache level, so that
// the template dimensions (block bytes / cache bytes) stay finite.
constexpr double kFallbackL1Bytes = 32 * 1024;
constexpr double kFallbackL2Bytes = 1024 * 1024;
}  // namespace

int64_t OperandRegisters(int64_t nr_vec) { return nr_vec + 1; }

Expected<IsaProfile> MakeIsaProfile(const IntrinsicInfo& intrinsic, int64_t vector_registers,
                                    const HardwareParams& hardware) {
  const int input_bits = TypeBits(intrinsic.input_type);
  const int acc_bits = TypeBits(intrinsic.accum_type);
  if (input_bits < 8 || acc_bits < 8) {
    return Status::InvalidArgument(intrinsic.name + ": types '" + intrinsic.input_type + "' -> '" +
                                   intrinsic.accum_type + "' have no whole-byte width");
  }
  if (intrinsic.n < 1 || intrinsic.k < 1 || vector_registers < 4) {
    return Status::InvalidArgument(intrinsic.name + ": lanes, k-group and registers must be positive");
  }
  IsaProfile p;
  p.intrinsic = intrinsic.name;
  p.input_type = intrinsic.input_type;
  p.accum_type = intrinsic.accum_type;
  p.lanes = intrinsic.n;
  p.k_group = intrinsic.k;
  p.input_bytes = input_bits / 8;
  p.acc_bytes = acc_bits / 8;
  p.vector_registers = vector_registers;
  p.cores = std::max<int64_t>(1, static_cast<int64_t>(hardware.cores));
  p.l1_bytes = hardware.l1_bytes > 0 ? hardware.l1_bytes : kFallbackL1Bytes;
  p.l2_bytes = hardware.l2_bytes > 0 ? hardware.l2_bytes : kFallbackL2Bytes;
  p.l3_bytes = std::max(0.0, hardware.l3_bytes);
  return p;
}

}  // namespace ucmoh::cpu_gemm
