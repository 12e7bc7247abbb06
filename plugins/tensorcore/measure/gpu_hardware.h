// The hardware of a CUDA device as the records carry it, read from the CUDA
// runtime: name and compute capability, SMs, clock, L2, shared memory and
// registers. The "sm_XX" flag is what the plugin's ArchitectureOf reads.
#pragma once

#include <cstdint>

#include "ucmoh/status.h"
#include "ucmoh/target.h"

namespace ucmoh::tensorcore::measure {

// Unsupported ("no CUDA device: <runtime's message>") where the runtime finds none.
Expected<HardwareParams> ReadGpuHardware(int device);

// What a record's provenance says of the device beyond its hardware: memory,
// and the CUDA runtime and driver versions (1000 * major + 10 * minor).
struct GpuDetails {
  int64_t memory_bytes = 0;
  int64_t memory_clock_mhz = 0;
  int bus_width_bits = 0;
  int runtime_version = 0;
  int driver_version = 0;
};
GpuDetails ReadGpuDetails(int device);

}  // namespace ucmoh::tensorcore::measure
