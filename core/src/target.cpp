#include "ucmoh/target.h"

#include <array>
#include <cstdio>
#include <cstring>
#include <tuple>

namespace ucmoh {

int TypeBits(const std::string& type) {
  if (type == "f64") return 64;
  if (type == "f32" || type == "s32" || type == "u32") return 32;
  if (type == "f16" || type == "bf16" || type == "s16") return 16;
  if (type == "s8" || type == "u8" || type == "u8s8") return 8;
  if (type == "s4" || type == "u4") return 4;
  return 0;
}

bool TypeIsInteger(const std::string& type) {
  return !type.empty() && (type[0] == 's' || type[0] == 'u');
}

namespace {

auto Fields(const HardwareParams& h) {
  return std::tie(h.model, h.is_gpu, h.cores, h.vector_bytes, h.vector_registers, h.cache_line_bytes,
                  h.l1_bytes, h.l2_bytes, h.l3_bytes, h.warp_size, h.max_threads_per_block,
                  h.shared_bytes_per_block, h.registers_per_sm, h.clock_ghz, h.flags);
}

std::string Number(double x) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.17g", x);
  return text;
}

}  // namespace

bool operator==(const HardwareParams& a, const HardwareParams& b) { return Fields(a) == Fields(b); }

namespace {

// The numeric fields, in key order.
std::array<double, 12> Numbers(const HardwareParams& h) {
  return {h.cores, h.vector_bytes, h.vector_registers, h.cache_line_bytes, h.l1_bytes, h.l2_bytes,
          h.l3_bytes, h.warp_size, h.max_threads_per_block, h.shared_bytes_per_block,
          h.registers_per_sm, h.clock_ghz};
}

std::string BuildHardwareKey(const HardwareParams& h) {
  std::string key = h.model + (h.is_gpu ? ";gpu" : ";cpu");
  for (double x : Numbers(h)) key += ';' + Number(x);
  for (const std::string& flag : h.flags) key += ';' + flag;
  return key;
}

}  // namespace

bool SameHardwareBits(const HardwareParams& a, const HardwareParams& b) {
  const auto x = Numbers(a), y = Numbers(b);
  return a.model == b.model && a.is_gpu == b.is_gpu && a.flags == b.flags &&
         std::memcmp(x.data(), y.data(), sizeof(double) * x.size()) == 0;
}

// Records come in runs measured on one machine, and printing twelve doubles
// exactly was half of BuildProgramSet's time: the last key this thread built
// is reused while the hardware is the same, bit for bit.
std::string HardwareKey(const HardwareParams& h) {
  thread_local HardwareParams last;
  thread_local std::string last_key;
  if (last_key.empty() || !SameHardwareBits(h, last)) {
    last_key = BuildHardwareKey(h);
    last = h;
  }
  return last_key;
}

}  // namespace ucmoh
