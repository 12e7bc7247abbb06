// What a plugin says about its hardware and its intrinsics.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ucmoh {

// Hardware parameters; 0 means "not applicable" (no warp size on a CPU) or
// "unknown". Every record carries the HardwareParams of the machine it ran on
// (docs/records.md, "hardware"); lowering, validation and featurization read
// that, never the machine that featurizes. A plugin's TargetInfo::hardware is
// only the default for new measurements.
struct HardwareParams {
  std::string model;             // "Intel(R) Xeon(R) ...", "NVIDIA Ampere (sm_80)"
  bool is_gpu = false;
  double cores = 0;              // CPU cores, or GPU SMs
  double vector_bytes = 0;       // widest SIMD register
  double vector_registers = 0;   // architectural SIMD registers
  double cache_line_bytes = 0;
  double l1_bytes = 0;           // per core / per SM
  double l2_bytes = 0;
  double l3_bytes = 0;
  double warp_size = 0;
  double max_threads_per_block = 0;
  double shared_bytes_per_block = 0;
  double registers_per_sm = 0;
  double clock_ghz = 0;          // nominal (base) clock, never a momentary reading
  std::vector<std::string> flags;  // ISA extensions (CPU) or capabilities (GPU) that matter
};

bool operator==(const HardwareParams& a, const HardwareParams& b);
inline bool operator!=(const HardwareParams& a, const HardwareParams& b) { return !(a == b); }

// A canonical one-line text form of every field, used in program keys.
std::string HardwareKey(const HardwareParams& hardware);

// Equal field by field, numbers bit for bit (0.0 and -0.0 differ: they print
// differently in keys).
bool SameHardwareBits(const HardwareParams& a, const HardwareParams& b);

struct IntrinsicInfo {
  std::string name;          // "<target>.<name>"
  std::string instruction;   // "vpdpbusd", "mma.sync.m16n8k16", ...
  int64_t m = 1, n = 1, k = 1;  // lanes of one call (m x n outputs, k-deep)
  std::string input_type;    // "f32", "f16", "bf16", "u8s8", "s8"
  std::string accum_type;    // "f32", "f16", "s32"
  double ops_per_call = 0;   // multiply-adds count as 2
  std::string description;
};

struct TargetInfo {
  std::string name;          // "x86", "arm", "tensorcore"
  std::string description;
  HardwareParams hardware;   // what new measurements run on (x86: this host)
};

// Bits of one element of a type name used above (u8s8 counts 8).
int TypeBits(const std::string& type);
bool TypeIsInteger(const std::string& type);

}  // namespace ucmoh
